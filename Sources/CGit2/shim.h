#ifndef CONCORD_CGIT2_SHIM_H
#define CONCORD_CGIT2_SHIM_H
#define GIT_DEPRECATE_HARD
#include <git2.h>
#include <git2/sys/commit.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <git2/sys/transport.h>

/* libgit2 is loaded on first use (the CGit2Loader target): git_libgit2_opts, variadic, is called
 * through its own type, and cannot be called from Swift: one typed wrapper per option. */
void *concord_libgit2_symbol(const char *name);
/* git_libgit2_init, the system's certificate authorities parsed at the first TLS connection (CGit2Loader). */
int concord_libgit2_init(void);
#define git_libgit2_opts ((int (*)(int, ...))concord_libgit2_symbol("git_libgit2_opts"))
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
static inline int concord_git_set_pack_max_object_size(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_PACK_MAX_OBJECT_SIZE, bytes);
}
static inline int concord_git_set_ssl_cert_locations(const char *file, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

#include <stdlib.h>
#include <string.h>

/*
 * An object database backend whose functions are Swift's (Concord's object store serves every
 * read and write): libgit2's backend structure, one pointer for the Swift side, and the folder
 * where a pack received from the network is indexed. Receiving one goes through libgit2's
 * indexer (its checks, its thin-pack completion), as libgit2's own pack backend does.
 */
typedef struct {
    git_odb_backend parent;
    void *payload;
    char *pack_folder;
} concord_odb_backend;

typedef struct {
    git_odb_writepack parent;
    git_indexer *indexer;
} concord_writepack;

static int concord_writepack_append(git_odb_writepack *writepack, const void *data, size_t size, git_indexer_progress *stats) {
    return git_indexer_append(((concord_writepack *)writepack)->indexer, data, size, stats);
}

static int concord_writepack_commit(git_odb_writepack *writepack, git_indexer_progress *stats) {
    return git_indexer_commit(((concord_writepack *)writepack)->indexer, stats);
}

static void concord_writepack_free(git_odb_writepack *writepack) {
    if (!writepack) return;
    git_indexer_free(((concord_writepack *)writepack)->indexer);
    free(writepack);
}

static int concord_odb_backend_writepack(
    git_odb_writepack **out, git_odb_backend *backend, git_odb *odb, git_indexer_progress_cb progress, void *payload) {
    concord_writepack *writepack = calloc(1, sizeof *writepack);
    if (!writepack) return -1;
    git_indexer_options options = GIT_INDEXER_OPTIONS_INIT;
    options.progress_cb = progress;
    options.progress_cb_payload = payload;
    int error = git_indexer_new(&writepack->indexer, ((concord_odb_backend *)backend)->pack_folder, 0, odb, &options);
    if (error < 0) {
        free(writepack);
        return error;
    }
    writepack->parent.backend = backend;
    writepack->parent.append = concord_writepack_append;
    writepack->parent.commit = concord_writepack_commit;
    writepack->parent.free = concord_writepack_free;
    *out = &writepack->parent;
    return 0;
}

/* A new backend with no functions but writepack yet, or NULL when memory runs out. */
static inline concord_odb_backend *concord_odb_backend_new(void *payload, const char *pack_folder) {
    concord_odb_backend *backend = calloc(1, sizeof *backend);
    if (!backend) return NULL;
    if (git_odb_init_backend(&backend->parent, GIT_ODB_BACKEND_VERSION) < 0 || !(backend->pack_folder = strdup(pack_folder))) {
        free(backend);
        return NULL;
    }
    backend->payload = payload;
    backend->parent.writepack = concord_odb_backend_writepack;
    return backend;
}

static inline void *concord_odb_backend_payload(git_odb_backend *backend) {
    return ((concord_odb_backend *)backend)->payload;
}

static inline void concord_odb_backend_free(git_odb_backend *backend) {
    free(((concord_odb_backend *)backend)->pack_folder);
    free(backend);
}

/*
 * A smart subtransport around one of libgit2's (ssh, http, git://) that keeps the bytes of the
 * reference advertisement as they are read. libgit2 reads the advertisement inside its smart
 * transport's connect, the only call that installs a connection's credential and certificate
 * callbacks (set_connect_opts refuses a transport not connected); Concord then reads the same
 * bytes itself, with its own checks (Sources/Git/Repository+Connection.swift, for a push and for
 * a peek at a reference). Only the streams of the advertisement actions (*_LS) are recorded, at
 * most `limit` bytes: past it, or when memory runs out, `failed` is set and nothing more is kept.
 * With `keeps_state` (a transport kept from one operation to the next), the smart transport's
 * close at each connect is not handed on: libgit2 1.5's http close only drops the credentials
 * and the URL, and without them every operation was first refused (401) and sent again. The
 * inner subtransport's free still closes it.
 */
typedef struct {
    git_smart_subtransport parent;
    git_smart_subtransport *inner;
    char *recorded;
    size_t length;
    size_t capacity;
    size_t limit;
    int failed;
    int keeps_state;
} concord_recording_subtransport;

typedef struct {
    git_smart_subtransport_stream parent;
    git_smart_subtransport_stream *inner;
    concord_recording_subtransport *owner;
} concord_recording_stream;

static int concord_recording_read(git_smart_subtransport_stream *stream, char *buffer, size_t size, size_t *bytes_read) {
    concord_recording_stream *recording = (concord_recording_stream *)stream;
    int error = recording->inner->read(recording->inner, buffer, size, bytes_read);
    concord_recording_subtransport *owner = recording->owner;
    if (error < 0 || *bytes_read == 0 || owner->failed) return error;
    if (*bytes_read > owner->limit - owner->length) {
        owner->failed = 1;
        return error;
    }
    if (*bytes_read > owner->capacity - owner->length) {
        size_t capacity = owner->capacity ? owner->capacity : 4096;
        while (capacity - owner->length < *bytes_read) capacity *= 2;
        char *grown = realloc(owner->recorded, capacity);
        if (!grown) {
            owner->failed = 1;
            return error;
        }
        owner->recorded = grown;
        owner->capacity = capacity;
    }
    memcpy(owner->recorded + owner->length, buffer, *bytes_read);
    owner->length += *bytes_read;
    return error;
}

static int concord_recording_write(git_smart_subtransport_stream *stream, const char *buffer, size_t length) {
    concord_recording_stream *recording = (concord_recording_stream *)stream;
    return recording->inner->write(recording->inner, buffer, length);
}

static void concord_recording_stream_free(git_smart_subtransport_stream *stream) {
    concord_recording_stream *recording = (concord_recording_stream *)stream;
    recording->inner->free(recording->inner);
    free(recording);
}

static int concord_recording_action(
    git_smart_subtransport_stream **out, git_smart_subtransport *transport, const char *url, git_smart_service_t action) {
    concord_recording_subtransport *owner = (concord_recording_subtransport *)transport;
    git_smart_subtransport_stream *inner = NULL;
    int error = owner->inner->action(&inner, owner->inner, url, action);
    if (error < 0) return error;
    if (action != GIT_SERVICE_UPLOADPACK_LS && action != GIT_SERVICE_RECEIVEPACK_LS) {
        *out = inner;
        return 0;
    }
    concord_recording_stream *recording = calloc(1, sizeof *recording);
    if (!recording) {
        inner->free(inner);
        return -1;
    }
    recording->parent.subtransport = transport;
    recording->parent.read = concord_recording_read;
    recording->parent.write = concord_recording_write;
    recording->parent.free = concord_recording_stream_free;
    recording->inner = inner;
    recording->owner = owner;
    owner->length = 0;
    owner->failed = 0;
    *out = &recording->parent;
    return 0;
}

static int concord_recording_close(git_smart_subtransport *transport) {
    concord_recording_subtransport *owner = (concord_recording_subtransport *)transport;
    return owner->keeps_state ? 0 : owner->inner->close(owner->inner);
}

static void concord_recording_free(git_smart_subtransport *transport) {
    concord_recording_subtransport *owner = (concord_recording_subtransport *)transport;
    owner->inner->free(owner->inner);
    free(owner->recorded);
    free(owner);
}

/* `inner` wrapped, keeping at most `limit` bytes of an advertisement, and its state across
 * connects when `keeps_state`; NULL when memory runs out (`inner` is then still the caller's). */
static inline git_smart_subtransport *concord_recording_subtransport_new(git_smart_subtransport *inner, size_t limit, int keeps_state) {
    concord_recording_subtransport *owner = calloc(1, sizeof *owner);
    if (!owner) return NULL;
    owner->keeps_state = keeps_state;
    owner->parent.action = concord_recording_action;
    owner->parent.close = concord_recording_close;
    owner->parent.free = concord_recording_free;
    owner->inner = inner;
    owner->limit = limit;
    return &owner->parent;
}

/* The bytes of the last advertisement `transport` (made by concord_recording_subtransport_new)
 * read, their count in `length`; NULL with a length of 0 when it recorded nothing or failed. */
static inline const char *concord_recorded_advertisement(git_smart_subtransport *transport, size_t *length, int *failed) {
    concord_recording_subtransport *owner = (concord_recording_subtransport *)transport;
    *failed = owner->failed;
    *length = owner->failed ? 0 : owner->length;
    return owner->failed ? NULL : owner->recorded;
}

/* Forgets what `transport` (made by concord_recording_subtransport_new) recorded, before an
 * operation on a kept transport: until its advertisement arrives, nothing is recorded. */
static inline void concord_recording_reset(git_smart_subtransport *transport) {
    concord_recording_subtransport *owner = (concord_recording_subtransport *)transport;
    owner->length = 0;
    owner->failed = 0;
}

/*
 * The smart subtransport Concord makes for ssh URLs and its stream (Sources/Git/SSHSubtransport.swift):
 * libgit2's structure first, then the Swift object that owns it.
 */
typedef struct {
    git_smart_subtransport parent;
    void *owner;
} concord_subtransport;

typedef struct {
    git_smart_subtransport_stream parent;
    void *owner;
} concord_subtransport_stream;

#include <errno.h>
#include <git2/sys/stream.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/*
 * The stream Concord registers for every plain socket libgit2 opens (Sources/Git/SocketStream.swift).
 * It starts with the fields of libgit2's private git_socket_stream (src/libgit2/streams/socket.h:
 * the git_stream, the host, the port, then the socket), which libgit2 1.5's libssh2 transport
 * casts a stream to; Concord's ssh goes through OpenSSH's client instead (SSHSubtransport.swift),
 * and the layout stays so that nothing breaks if that transport ever runs. Concord's own fields
 * come after them.
 */
typedef struct {
    git_stream parent;
    char *host;
    char *port;
    int socket;
    /* The Swift SocketStream that owns the connection, retained until free. */
    void *owner;
} concord_socket_stream;

static inline int concord_git_stream_register_standard(git_stream_registration *registration) {
    return git_stream_register(GIT_STREAM_STANDARD, registration);
}

/*
 * Linux's struct tcp_info (linux/tcp.h) as far as its byte counters (kernel 4.1 and later), which
 * glibc's struct tcp_info lacks; linux/tcp.h cannot be included beside <netinet/tcp.h>. The
 * kernel's struct only ever grows at its end, so glibc's struct is its prefix.
 */
struct concord_tcp_info {
    struct tcp_info base;
    uint64_t pacing_rate;
    uint64_t max_pacing_rate;
    uint64_t bytes_acked;
    uint64_t bytes_received;
};
_Static_assert(sizeof(struct tcp_info) == 104, "glibc's struct tcp_info is the first 104 bytes of Linux's");

/*
 * The bytes a TCP socket has received, and the bytes it sent that the other side acknowledged,
 * since it connected. 0, or -1 (errno set) when the kernel does not count them.
 */
static inline int concord_tcp_bytes(int socket, uint64_t *received, uint64_t *acked) {
    struct concord_tcp_info info;
    socklen_t length = sizeof info;
    memset(&info, 0, sizeof info);
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    if (length < sizeof info) { errno = ENOTSUP; return -1; }
    *received = info.bytes_received;
    *acked = info.bytes_acked;
    return 0;
}

#include <poll.h>
#ifndef POLLRDHUP
#define POLLRDHUP 0x2000 /* Linux's, declared only under _GNU_SOURCE */
#endif

/*
 * 1 when the other side of a connected socket has closed it (its FIN arrived) or reset it, or
 * the socket is in error; 0 while it is open. Bytes waiting to be read are not a close: a kept
 * HTTP connection may still hold the end of the last answer (a chunked body's last chunk),
 * which libgit2 reads before its next request.
 */
static inline int concord_socket_closed(int socket) {
    struct pollfd request = {.fd = socket, .events = POLLIN | POLLRDHUP, .revents = 0};
    int ready;
    do {
        ready = poll(&request, 1, 0);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return 1;
    return (request.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

#include <unistd.h>

/* syncfs(2) is declared only under _GNU_SOURCE, which Swift's Glibc module does not define. */
int syncfs(int fd);
static inline int concord_syncfs(int descriptor) {
    return syncfs(descriptor);
}

/* For ssh's child (Sources/Git/SSHProcess.swift): glibc's posix_spawn_file_actions_addclosefrom_np
 * (2.34) and POSIX_SPAWN_SETSID (2.26) are declared only under _GNU_SOURCE. */
#include <spawn.h>
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
static inline int concord_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
static inline short concord_spawn_setsid_flag(void) {
    return 0x80; /* POSIX_SPAWN_SETSID in glibc's <spawn.h> */
}

/* malloc_trim(3) is in <malloc.h>, which Swift's Glibc module does not export. */
#include <malloc.h>
static inline void concord_malloc_trim(void) {
    malloc_trim(0);
}
/* Fixed thresholds (mallopt(3)): they also turn off glibc's dynamic ones, which after a large
   block is freed keep up to twice its size at the top of each thread's arena. */
static inline void concord_malloc_set_thresholds(int mmap_threshold, int trim_threshold) {
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, trim_threshold);
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

#endif
