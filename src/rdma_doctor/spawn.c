/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The triage's runs are the suite's own tools, started as children: rc_write_bw and
 * socket_bw from this program's directory (then PATH). Each child is bounded: past
 * its time it gets SIGTERM, then SIGKILL, with everything it started (it leads a
 * process group of its own); and it dies with its parent (a killed doctor leaves no
 * server or client behind). Its CSV document is read back row by
 * row, the columns by the header's names.
 */
#include "spawn.h"

#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The sibling tool's path: beside /proc/self/exe when it is there, else the name for PATH. */
static void tool_path(const char *tool, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	snprintf(out, len, "%s", tool);
	if (n > 0) {
		self[n] = 0;
		snprintf(out, len, "%s/%s", dirname(self), tool);
		if (access(out, X_OK))
			snprintf(out, len, "%s", tool);
	}
}

bool dr_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char full[PATH_MAX];

	while (path && *path) {
		size_t n = strcspn(path, ":");
		int len = snprintf(full, sizeof(full), "%.*s/%s", n ? (int)n : 1, n ? path : ".", name);
		if (len > 0 && (size_t)len < sizeof(full) && !access(full, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

pid_t dr_spawn(char *const argv[], const char *err_path)
{
	char path[PATH_MAX];
	pid_t parent = getpid(), pid;

	tool_path(argv[0], path, sizeof(path));
	fflush(NULL);
	pid = fork();
	if (pid)
		return pid; /* -1: the caller says so */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	int null = open("/dev/null", O_RDWR);
	int err = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
	}
	if (err >= 0)
		dup2(err, STDERR_FILENO);
	execvp(path, argv);
	dprintf(STDERR_FILENO, "%s: cannot run %s: %s\n", rb_prog(), path, strerror(errno));
	_exit(127);
}

void dr_spawn_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	for (int i = 0; i < 2; i++) {
		kill(-pid, i ? SIGKILL : SIGTERM);
		for (int t = 0; t < 40; t++) { /* 2 s for SIGTERM to end it */
			if (waitpid(pid, NULL, WNOHANG) == pid)
				return;
			usleep(50000);
		}
	}
	waitpid(pid, NULL, 0);
}

int dr_spawn_wait(pid_t pid, unsigned bound_s, bool *timed_out)
{
	uint64_t end = rb_now_ns() + (uint64_t)bound_s * RB_NS_PER_S;
	int st;

	*timed_out = false;
	while (rb_now_ns() < end) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (w < 0 && errno != EINTR)
			return -1;
		if (rb_stop_signal()) {
			dr_spawn_stop(pid);
			return 128 + rb_stop_signal();
		}
		usleep(20000);
	}
	*timed_out = true;
	dr_spawn_stop(pid);
	return -1;
}

int dr_run_tool(char *const argv[], unsigned bound_s, const char *err_path, char *first_err, size_t len)
{
	bool late;
	pid_t pid = dr_spawn(argv, err_path);
	int rc;
	FILE *f;
	char line[512];

	first_err[0] = 0;
	if (pid < 0) {
		snprintf(first_err, len, "cannot start %s: %s", argv[0], strerror(errno));
		return -1;
	}
	rc = dr_spawn_wait(pid, bound_s, &late);
	/* The first line that is not a warning: the tools say their first cause first. */
	f = fopen(err_path, "r");
	while (f && !first_err[0] && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strstr(line, ": warning: ") && line[0])
			snprintf(first_err, len, "%s", line);
	}
	if (f)
		fclose(f);
	if (late)
		snprintf(first_err, len, "%s did not end within %u s (killed)", argv[0], bound_s);
	return rc;
}

/* One CSV record into cells (RFC 4180 quotes); the count. */
static unsigned csv_split(char *line, char **cell, unsigned max)
{
	unsigned n = 0;
	char *r = line, *w = line;

	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		bool q = *r == '"';
		cell[n++] = w;
		if (q)
			r++;
		while (*r && (q || *r != ',')) {
			if (q && *r == '"') {
				if (r[1] != '"') {
					q = false;
					r++;
					continue;
				}
				r++;
			}
			*w++ = *r++;
		}
		if (!*r) {
			*w = 0;
			break;
		}
		*w++ = 0;
		r++;
	}
	return n;
}

int dr_csv_read(const char *path, struct dr_csv *c)
{
	FILE *f = fopen(path, "r");

	memset(c, 0, sizeof(*c));
	if (!f)
		return -errno;
	if (fgets(c->head, sizeof(c->head), f))
		c->ncols = csv_split(c->head, c->col, DR_CSV_COLS);
	while (c->nrows < DR_CSV_ROWS && fgets(c->line[c->nrows], sizeof(c->line[0]), f))
		if (csv_split(c->line[c->nrows], c->cell[c->nrows], DR_CSV_COLS) > 0)
			c->nrows++;
	fclose(f);
	return 0;
}

const char *dr_csv_get(const struct dr_csv *c, unsigned row, const char *col)
{
	for (unsigned i = 0; row < c->nrows && i < c->ncols; i++)
		if (!strcmp(c->col[i], col))
			return c->cell[row][i] ? c->cell[row][i] : "";
	return "";
}

double dr_csv_num(const struct dr_csv *c, unsigned row, const char *col)
{
	const char *v = dr_csv_get(c, row, col);
	char *end;
	double d = strtod(v, &end);

	return *v && !*end ? d : -1;
}

/* The children's documents, whatever they left (a killed one: its temporary files too). */
void dr_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < sizeof(path))
			unlink(path);
	if (d)
		closedir(d);
	if (rmdir(dir))
		rb_warn("cannot remove %s: %s", dir, strerror(errno));
}
