/* fuzz_mutator.h: a libFuzzer custom mutator for .fpl logs that keeps their framing valid,
 * so the fuzzer reaches the record decoders instead of stopping at a CRC mismatch. */
#ifndef FUZZ_MUTATOR_H
#define FUZZ_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

/* Mutates the log in data[0..size) in place (up to max_size bytes) and returns its new size.
 * Mostly: one chunk's payload is changed (raw bytes, one record's body re-framed with its new
 * length, a record copied from another chunk, a record type changed) and the chunk re-framed
 * with its length and CRC; sometimes whole chunks are dropped, duplicated, swapped, renumbered
 * or cut off; now and then the raw bytes are mutated (damage the reader must skip). Input
 * that is not a log is mutated raw. */
size_t fuzz_mutate_log(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* libFuzzer's own mutator, for use inside a custom one. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#endif
