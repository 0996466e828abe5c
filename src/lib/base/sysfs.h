/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reading sysfs (or a copy of it under another root, for tests and for diagnosing a
 * tree taken from another host): one small file's first line, a number, a link's
 * target. Every path is ROOT/REL; nothing here assumes the root is "/sys".
 */
#ifndef RB_SYSFS_H
#define RB_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/* ROOT/REL into out; false when it does not fit. */
bool rb_sysfs_path(char *out, size_t len, const char *root, const char *rel);
/* The first line of ROOT/REL, without its newline; false when unreadable. */
bool rb_sysfs_line(const char *root, const char *rel, char *out, size_t len);
/* The integer at the start of ROOT/REL ("4: ACTIVE" -> 4), or dflt. */
long rb_sysfs_long(const char *root, const char *rel, long dflt);
bool rb_sysfs_exists(const char *root, const char *rel);
/* The resolved path of ROOT/REL (malloc'd), NULL when it does not exist. */
char *rb_sysfs_real(const char *root, const char *rel);
/* The last component of the link ROOT/REL points to ("mlx5_core"); false when no link. */
bool rb_sysfs_link_name(const char *root, const char *rel, char *out, size_t len);

#endif
