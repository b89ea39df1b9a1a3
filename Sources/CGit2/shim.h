#ifndef CONCORD_CGIT2_SHIM_H
#define CONCORD_CGIT2_SHIM_H
#define GIT_DEPRECATE_HARD
#include <git2.h>
#include <git2/sys/commit.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <git2/sys/transport.h>

/* git_libgit2_opts is variadic and cannot be called from Swift: one typed wrapper per option. */
static inline int concord_git_set_search_path(int level, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, path);
}
static inline int concord_git_enable_fsync(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}
static inline int concord_git_set_mwindow_mapped_limit(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, bytes);
}
static inline int concord_git_set_cache_object_limit(git_object_t type, size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, type, bytes);
}
static inline int concord_git_set_cache_max_size(ssize_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, bytes);
}
static inline int concord_git_set_mwindow_size(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, bytes);
}
static inline int concord_git_enable_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}
static inline int concord_git_set_ssl_cert_locations(const char *file, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

#include <unistd.h>

/* syncfs(2) is declared only under _GNU_SOURCE, which Swift's Glibc module does not define. */
int syncfs(int fd);
static inline int concord_syncfs(int descriptor) {
    return syncfs(descriptor);
}

#include <stdio.h>
#include <string.h>
#include <zlib.h>

/*
 * 1 when the file holds one complete zlib stream, 0 when it is truncated or damaged, -1 when it
 * cannot be read. libgit2 1.5 loops forever reading a truncated loose object (libgit2 issue
 * 7342, fixed upstream in 2026), so the Git wrapper checks a loose object's file before reading it.
 */
static inline int concord_zlib_file_is_complete(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) { fclose(file); return -1; }
    unsigned char input[16384], output[65536];
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        stream.avail_in = (uInt)fread(input, 1, sizeof input, file);
        if (ferror(file) || stream.avail_in == 0) break;
        stream.next_in = input;
        do {
            stream.avail_out = sizeof output;
            stream.next_out = output;
            status = inflate(&stream, Z_NO_FLUSH);
            if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) goto done;
        } while (stream.avail_out == 0 && status != Z_STREAM_END);
    }
done:
    inflateEnd(&stream);
    fclose(file);
    return status == Z_STREAM_END ? 1 : 0;
}

#include <mbedtls/sha1.h>
#include <mbedtls/version.h>

/* The SHA-1 of a buffer (a pack's trailing checksum), across mbedTLS 2 and 3. */
static inline int concord_sha1(const void *data, size_t size, unsigned char digest[20]) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_sha1((const unsigned char *)data, size, digest);
#else
    return mbedtls_sha1_ret((const unsigned char *)data, size, digest);
#endif
}
#endif
