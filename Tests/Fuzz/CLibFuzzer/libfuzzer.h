#ifndef CONCORD_LIBFUZZER_H
#define CONCORD_LIBFUZZER_H
/* libFuzzer's driver, which swiftc's -sanitize=fuzzer links in. The fuzz executables call it
   from their own main: SwiftPM gives every executable a main of its own, so libFuzzer's is not
   the one that runs. */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));
#endif
