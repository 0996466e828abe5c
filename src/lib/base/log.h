/* SPDX-License-Identifier: BSD-2-Clause */
/* Diagnostics: one line per message, prefixed with the program name. */
#ifndef RB_LOG_H
#define RB_LOG_H

#include <stdbool.h>

#define RB_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Exit codes shared by every tool. */
enum { RB_EXIT_OK = 0, RB_EXIT_RUNTIME = 1, RB_EXIT_USAGE = 2 };

void rb_log_init(const char *prog);
const char *rb_prog(void);
void rb_set_verbose(int level);
int rb_verbose(void);

/* "prog: message" on stderr. */
void rb_err(const char *fmt, ...) RB_PRINTF(1, 2);
void rb_warn(const char *fmt, ...) RB_PRINTF(1, 2);
/*
 * rb_err() for a value or combination the user gave (an option, a name that does
 * not exist here, parameters that differ from the peer's). When it is the first
 * cause, the run exits 2; every other failure exits 1.
 */
void rb_usage_err(const char *fmt, ...) RB_PRINTF(1, 2);
/* The first rb_err() line since start: the cause forwarded to the peer. Thread-safe. */
const char *rb_first_error(void);
/* Forgets the first cause: a server that refused a stranger goes on as if it never came. */
void rb_forget_first_error(void);

/* Whether the first error recorded was a usage error (rb_usage_err). */
bool rb_first_error_is_usage(void);

/*
 * While held, messages are kept from stderr (the first cause is still recorded): a
 * server judging a candidate says why it refused it once, as one refusal line,
 * whatever the judging found to say. rb_log_hold(false) drops what was kept (the
 * candidate was a stranger); rb_log_release() says it (the candidate is the peer,
 * or the run failed for a cause of its own).
 */
void rb_log_hold(bool on);
void rb_log_release(void);

/* A progress line is (not) on the terminal: messages erase it before they print. */
void rb_log_progress(bool shown);

/* Only with -v. */
void rb_dbg(const char *fmt, ...) RB_PRINTF(1, 2);

#endif
