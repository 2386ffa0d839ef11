#ifndef OPEN_MARKET_LIBFUZZER_H
#define OPEN_MARKET_LIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver with the process's arguments and `callback` as the target, as
/// libFuzzer's own main does; returns the exit status. Defined by libFuzzer's runtime
/// (FuzzerDriver.cpp), present only when linked with -sanitize=fuzzer.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
