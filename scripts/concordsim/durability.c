/*
 * The crash harness's durability audit: preloaded into concord (LD_PRELOAD), it logs every
 * successful fsync/fdatasync (with the path of the descriptor), sync/syncfs, rename and link
 * (absolute paths), and the close of every regular file open for writing ("written"), to the
 * file named by CONCORD_AUDIT_LOG, one tab-separated line each. The harness then checks that
 * every file moved into place was flushed after it was written and before the move, and its
 * folder after.
 *
 * Built by scripts/concordsim/crash.py with the C compiler that comes with Swift:
 *   clang -shared -fPIC -O2 -o durability.so durability.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int log_fd = -1;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void open_log(void) {
    const char *path = getenv("CONCORD_AUDIT_LOG");
    if (path) log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static void log_line(const char *kind, const char *a, const char *b) {
    pthread_once(&log_once, open_log);
    if (log_fd < 0) return;
    char line[3 * PATH_MAX + 16];
    int n = snprintf(line, sizeof line, "%s\t%s\t%s\n", kind, a, b ? b : "");
    if (n > 0 && n < (int)sizeof line) {
        ssize_t ignored = write(log_fd, line, (size_t)n);
        (void)ignored;
    }
}

static void fd_path(int fd, char *out) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, PATH_MAX - 1);
    out[n > 0 ? n : 0] = 0;
}

static void absolute(int dirfd, const char *path, char *out) {
    if (path[0] == '/') {
        snprintf(out, PATH_MAX, "%s", path);
        return;
    }
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) base[0] = 0;
    } else {
        fd_path(dirfd, base);
    }
    snprintf(out, PATH_MAX, "%s/%s", base, path);
}

static int (*real_fsync)(int);
static void (*real_sync)(void);
static int (*real_syncfs)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned int);
static int (*real_link)(const char *, const char *);
static int (*real_close)(int);
static int (*real_linkat)(int, const char *, int, const char *, int);

#define REAL(name) if (!real_##name) *(void **)(&real_##name) = dlsym(RTLD_NEXT, #name)

int fsync(int fd) {
    REAL(fsync);
    char path[PATH_MAX];
    fd_path(fd, path);
    int result = real_fsync(fd);
    if (result == 0) log_line("fsync", path, NULL);
    return result;
}

/* sync(2) and syncfs(2) flush every file written before them: logged as "syncall". */
void sync(void) {
    REAL(sync);
    real_sync();
    log_line("syncall", "", NULL);
}

int syncfs(int fd) {
    REAL(syncfs);
    int result = real_syncfs(fd);
    if (result == 0) log_line("syncall", "", NULL);
    return result;
}

int fdatasync(int fd) {
    REAL(fdatasync);
    char path[PATH_MAX];
    fd_path(fd, path);
    int result = real_fdatasync(fd);
    if (result == 0) log_line("fsync", path, NULL);
    return result;
}

int rename(const char *from, const char *to) {
    REAL(rename);
    char a[PATH_MAX], b[PATH_MAX];
    absolute(AT_FDCWD, from, a);
    absolute(AT_FDCWD, to, b);
    int result = real_rename(from, to);
    if (result == 0) log_line("rename", a, b);
    return result;
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    REAL(renameat);
    char a[PATH_MAX], b[PATH_MAX];
    absolute(fromfd, from, a);
    absolute(tofd, to, b);
    int result = real_renameat(fromfd, from, tofd, to);
    if (result == 0) log_line("rename", a, b);
    return result;
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    REAL(renameat2);
    char a[PATH_MAX], b[PATH_MAX];
    absolute(fromfd, from, a);
    absolute(tofd, to, b);
    int result = real_renameat2(fromfd, from, tofd, to, flags);
    if (result == 0) log_line("rename", a, b);
    return result;
}

int link(const char *from, const char *to) {
    REAL(link);
    char a[PATH_MAX], b[PATH_MAX];
    absolute(AT_FDCWD, from, a);
    absolute(AT_FDCWD, to, b);
    int result = real_link(from, to);
    if (result == 0) log_line("link", a, b);
    return result;
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
    REAL(linkat);
    char a[PATH_MAX], b[PATH_MAX];
    absolute(fromfd, from, a);
    absolute(tofd, to, b);
    int result = real_linkat(fromfd, from, tofd, to, flags);
    if (result == 0) log_line("link", a, b);
    return result;
}

/* A regular file open for writing, closed: what it holds was written before this line. */
int close(int fd) {
    REAL(close);
    pthread_once(&log_once, open_log);
    if (log_fd >= 0 && fd != log_fd) {
        int flags = fcntl(fd, F_GETFL);
        struct stat info;
        if (flags >= 0 && (flags & O_ACCMODE) != O_RDONLY && fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
            char path[PATH_MAX];
            fd_path(fd, path);
            log_line("written", path, NULL);
        }
    }
    return real_close(fd);
}
