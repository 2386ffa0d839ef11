#ifndef GATEWAY_CZLIB_SHIM_H
#define GATEWAY_CZLIB_SHIM_H

// <sys/types.h> first, as in every shim (see CEvent/shim.h).
#include <sys/types.h>

#include <zlib.h>

// deflateInit2 and inflateInit2 are macros Swift cannot import.
static inline int czlib_deflate_init2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

static inline int czlib_inflate_init2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}

#endif
