/* What Forwarders.c needs: libgit2's declarations, as shim.h includes them, and the loader. */
#define GIT_DEPRECATE_HARD
#include <git2.h>
#include <git2/sys/commit.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <git2/sys/stream.h>
#include <git2/sys/transport.h>

#include "CGit2Loader.h"

/* The function `name` of the loaded libgit2, looked up once and kept in `slot`. */
#define forwarded(slot, name) ((__typeof__(name) *)concord_libgit2_slot((void **)&(slot), #name))

static inline void *concord_libgit2_slot(void **slot, const char *name)
{
    void *known = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (known)
        return known;
    known = concord_libgit2_symbol(name);
    __atomic_store_n(slot, known, __ATOMIC_RELEASE);
    return known;
}
