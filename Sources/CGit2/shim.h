#ifndef CONCORD_CGIT2_SHIM_H
#define CONCORD_CGIT2_SHIM_H
#define GIT_DEPRECATE_HARD
#include <git2.h>

/* git_libgit2_opts is variadic and cannot be called from Swift: one typed wrapper per option. */
static inline int concord_git_set_search_path(int level, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, path);
}
static inline int concord_git_enable_fsync(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}
#endif
