#ifndef CONCORD_CZLIB_SHIM_H
#define CONCORD_CZLIB_SHIM_H
/* zlib, for GitFormat's inflating of pack entries and loose objects (no libgit2 there). */
#include <zlib.h>
#endif
