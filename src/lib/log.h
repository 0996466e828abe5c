/* Diagnostics: one line per message, prefixed with the program name. */
#ifndef RB_LOG_H
#define RB_LOG_H

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
/* The first rb_err() line since start: the cause forwarded to the peer. */
const char *rb_first_error(void);

/* Exit code for a library error: configuration errors are 2, the rest 1. */
int rb_exit_code(int err);

/* Only with -v. */
void rb_dbg(const char *fmt, ...) RB_PRINTF(1, 2);

#endif
