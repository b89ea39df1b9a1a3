#ifndef CONCORD_CSHA1_SHIM_H
#define CONCORD_CSHA1_SHIM_H
/*
 * SHA-1 for GitFormat (a pack's and an index's trailing checksums, HMAC for OpenSSH's hashed host
 * names): mbedTLS's, with the processor's SHA extensions when it has them. Not for object ids
 * computed from someone else's bytes, which need collision detection (libgit2's SHA1DC does
 * those: Repository.verify).
 */
#include <stddef.h>
#include <string.h>
#include <mbedtls/sha1.h>
#include <mbedtls/version.h>

/* mbedTLS's SHA-1 (2 or 3), whatever the processor. */
static inline int concord_sha1_portable(const void *data, size_t size, unsigned char digest[20]) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_sha1((const unsigned char *)data, size, digest);
#else
    return mbedtls_sha1_ret((const unsigned char *)data, size, digest);
#endif
}


#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* 1 when the processor has the SHA extensions (CPUID leaf 7, EBX bit 29) and SSSE3/SSE4.1. */
static inline int concord_cpu_has_sha(void) {
    static int known = -1;
    if (known < 0) {
        unsigned int a, b, c, d;
        int sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
        int sse = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19));
        known = sha && sse;
    }
    return known;
}

/* One group of four rounds k (0-19) of SHA-1 with the SHA extensions; w[k % 4] holds the
   message words of the group and becomes those of group k + 4. */
#define CONCORD_SHA1_GROUP(k, function)                                                        \
    do {                                                                                       \
        e = (k) == 0 ? _mm_add_epi32(e, w[0]) : _mm_sha1nexte_epu32(before, w[(k) % 4]);       \
        before = abcd;                                                                         \
        abcd = _mm_sha1rnds4_epu32(abcd, e, function);                                         \
        if ((k) + 4 < 20)                                                                      \
            w[(k) % 4] = _mm_sha1msg2_epu32(                                                   \
                _mm_xor_si128(_mm_sha1msg1_epu32(w[(k) % 4], w[((k) + 1) % 4]), w[((k) + 2) % 4]), \
                w[((k) + 3) % 4]);                                                             \
    } while (0)

__attribute__((target("sha,ssse3,sse4.1")))
static inline void concord_sha1_blocks_ni(unsigned int state[5], const unsigned char *data, size_t blocks) {
    const __m128i reverse = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (; blocks > 0; blocks--, data += 64) {
        __m128i w[4], e = e0, before = abcd, start = abcd;
        for (int i = 0; i < 4; i++) w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), reverse);
        CONCORD_SHA1_GROUP(0, 0); CONCORD_SHA1_GROUP(1, 0); CONCORD_SHA1_GROUP(2, 0); CONCORD_SHA1_GROUP(3, 0);
        CONCORD_SHA1_GROUP(4, 0); CONCORD_SHA1_GROUP(5, 1); CONCORD_SHA1_GROUP(6, 1); CONCORD_SHA1_GROUP(7, 1);
        CONCORD_SHA1_GROUP(8, 1); CONCORD_SHA1_GROUP(9, 1); CONCORD_SHA1_GROUP(10, 2); CONCORD_SHA1_GROUP(11, 2);
        CONCORD_SHA1_GROUP(12, 2); CONCORD_SHA1_GROUP(13, 2); CONCORD_SHA1_GROUP(14, 2); CONCORD_SHA1_GROUP(15, 3);
        CONCORD_SHA1_GROUP(16, 3); CONCORD_SHA1_GROUP(17, 3); CONCORD_SHA1_GROUP(18, 3); CONCORD_SHA1_GROUP(19, 3);
        e0 = _mm_sha1nexte_epu32(before, e0);
        abcd = _mm_add_epi32(abcd, start);
    }
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
    state[4] = (unsigned int)_mm_extract_epi32(e0, 3);
}
#undef CONCORD_SHA1_GROUP

/* SHA-1 with the SHA extensions: whole blocks from `data`, then the padded tail. */
static inline void concord_sha1_ni(const unsigned char *data, size_t size, unsigned char digest[20]) {
    unsigned int state[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    size_t whole = size / 64;
    concord_sha1_blocks_ni(state, data, whole);
    unsigned char tail[128] = {0};
    size_t rest = size - whole * 64;
    memcpy(tail, data + whole * 64, rest);
    tail[rest] = 0x80;
    size_t tailBlocks = rest + 9 <= 64 ? 1 : 2;
    unsigned long long bits = (unsigned long long)size * 8;
    for (int i = 0; i < 8; i++) tail[tailBlocks * 64 - 1 - i] = (unsigned char)(bits >> (8 * i));
    concord_sha1_blocks_ni(state, tail, tailBlocks);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (unsigned char)(state[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(state[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(state[i] >> 8);
        digest[4 * i + 3] = (unsigned char)state[i];
    }
}
#endif

/* The SHA-1 of a buffer (a pack's trailing checksum): with the processor's SHA extensions when
   it has them, else mbedTLS's (2 or 3). Not collision-detecting: objects' ids are libgit2's. */
static inline int concord_sha1(const void *data, size_t size, unsigned char digest[20]) {
#if defined(__x86_64__)
    if (concord_cpu_has_sha()) {
        concord_sha1_ni((const unsigned char *)data, size, digest);
        return 0;
    }
#endif
    return concord_sha1_portable(data, size, digest);
}

/* SHA-1 over data given in pieces (a file streamed into an object): the same implementations,
   the processor's SHA extensions with this struct's buffering, else mbedTLS's own. */
typedef struct {
    int accelerated;
    unsigned int state[5];
    unsigned char buffer[64];
    size_t buffered;
    unsigned long long length;
    mbedtls_sha1_context portable;
} concord_sha1_stream;

static inline void concord_sha1_stream_start(concord_sha1_stream *stream) {
    memset(stream, 0, sizeof *stream);
#if defined(__x86_64__)
    stream->accelerated = concord_cpu_has_sha();
#endif
    if (stream->accelerated) {
        stream->state[0] = 0x67452301u; stream->state[1] = 0xEFCDAB89u; stream->state[2] = 0x98BADCFEu;
        stream->state[3] = 0x10325476u; stream->state[4] = 0xC3D2E1F0u;
    } else {
        mbedtls_sha1_init(&stream->portable);
#if MBEDTLS_VERSION_MAJOR >= 3
        mbedtls_sha1_starts(&stream->portable);
#else
        mbedtls_sha1_starts_ret(&stream->portable);
#endif
    }
}

static inline void concord_sha1_stream_update(concord_sha1_stream *stream, const void *data, size_t size) {
    const unsigned char *bytes = (const unsigned char *)data;
    if (!stream->accelerated) {
#if MBEDTLS_VERSION_MAJOR >= 3
        mbedtls_sha1_update(&stream->portable, bytes, size);
#else
        mbedtls_sha1_update_ret(&stream->portable, bytes, size);
#endif
        return;
    }
#if defined(__x86_64__)
    stream->length += size;
    if (stream->buffered > 0) {
        size_t take = 64 - stream->buffered < size ? 64 - stream->buffered : size;
        memcpy(stream->buffer + stream->buffered, bytes, take);
        stream->buffered += take;
        bytes += take;
        size -= take;
        if (stream->buffered < 64) return;
        concord_sha1_blocks_ni(stream->state, stream->buffer, 1);
        stream->buffered = 0;
    }
    size_t blocks = size / 64;
    if (blocks > 0) concord_sha1_blocks_ni(stream->state, bytes, blocks);
    memcpy(stream->buffer, bytes + blocks * 64, size - blocks * 64);
    stream->buffered = size - blocks * 64;
#endif
}

static inline void concord_sha1_stream_finish(concord_sha1_stream *stream, unsigned char digest[20]) {
    if (!stream->accelerated) {
#if MBEDTLS_VERSION_MAJOR >= 3
        mbedtls_sha1_finish(&stream->portable, digest);
#else
        mbedtls_sha1_finish_ret(&stream->portable, digest);
#endif
        mbedtls_sha1_free(&stream->portable);
        return;
    }
#if defined(__x86_64__)
    unsigned char tail[128] = {0};
    size_t rest = stream->buffered;
    memcpy(tail, stream->buffer, rest);
    tail[rest] = 0x80;
    size_t tailBlocks = rest + 9 <= 64 ? 1 : 2;
    unsigned long long bits = stream->length * 8;
    for (int i = 0; i < 8; i++) tail[tailBlocks * 64 - 1 - i] = (unsigned char)(bits >> (8 * i));
    concord_sha1_blocks_ni(stream->state, tail, tailBlocks);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (unsigned char)(stream->state[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(stream->state[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(stream->state[i] >> 8);
        digest[4 * i + 3] = (unsigned char)stream->state[i];
    }
#endif
}

#endif
