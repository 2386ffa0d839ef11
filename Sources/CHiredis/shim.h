#ifndef GATEWAY_CHIREDIS_SHIM_H
#define GATEWAY_CHIREDIS_SHIM_H

// hiredis' RESP side only: redisFormatCommandArgv writes commands, the reply reader
// (redisReaderCreate, redisReaderFeed, redisReaderGetReply) reads replies. The bytes travel
// over the transport's own stream (plain or TLS), not hiredis' sockets.
#include <sys/types.h>
#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#endif
