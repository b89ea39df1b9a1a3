#ifndef CONCORD_CGIT2_LOADER_H
#define CONCORD_CGIT2_LOADER_H

/* libgit2's function `name`, loading libgit2 on first use (once, for every thread). Prints one
 * line and ends the process (status 127, as the dynamic loader does) when libgit2 or the function
 * cannot be loaded. */
void *concord_libgit2_symbol(const char *name);

/* The function `name` of the loaded libgit2 or of a library it loaded; NULL when there is none. */
void *concord_libgit2_optional_symbol(const char *name);

/* git_libgit2_init, with the system's certificate authorities noted to be parsed at the first TLS
 * connection (Authorities.c) instead of parsed now. */
int concord_libgit2_init(void);

#endif
