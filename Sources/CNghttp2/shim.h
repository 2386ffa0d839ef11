#ifndef GATEWAY_CNGHTTP2_SHIM_H
#define GATEWAY_CNGHTTP2_SHIM_H

// <sys/types.h> first, as in every shim (see CLibevent/shim.h).
#include <sys/types.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#endif
