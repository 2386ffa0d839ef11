#ifndef GATEWAY_CHIREDIS_SHIM_H
#define GATEWAY_CHIREDIS_SHIM_H

// <sys/types.h> first, as in every shim (see CEvent/shim.h): the libevent adapter below
// includes event2/event.h, whose event-config.h defines _GNU_SOURCE.
#include <sys/types.h>

// The async API and its libevent adapter, which attaches a redisAsyncContext to an
// event_base. The adapter's functions are static, defined in the header.
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

#endif
