/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sweep's progress on stderr, never in a document: on a terminal one line rewritten
 * in place ("size 4096 B (5/23), ETA 0:42", and within a long size "12 s of 20 s"),
 * erased before every row; not on a terminal, one line every RB_PROGRESS_LINE_S
 * seconds of a size that lasts longer (the client's only: a log, not a display).
 * A thread of its own ticks within a size, since the size's loop belongs to the tool.
 */
#ifndef RB_PROGRESS_H
#define RB_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define RB_PROGRESS_LINE_S 10

struct rb_progress {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool running, quit;
	bool tty;   /* stderr is a terminal: the line is rewritten in place */
	bool lines; /* not a terminal: a line every RB_PROGRESS_LINE_S s of a long size */
	bool sweep; /* more than one measurement: the size's place and the ETA */
	bool active, shown;
	uint64_t size, t_sweep, t_size;
	unsigned i, n, next_line;
	double expect_s; /* the size's -D (0: not known in advance) */
};

/*
 * Before the sweep: tty (stderr is a terminal), lines (a line every RB_PROGRESS_LINE_S
 * s when it is not), sweep (more than one measurement). Starts the ticking thread when
 * there is anything to show; nothing when neither tty nor lines.
 */
void rb_progress_start(struct rb_progress *p, bool tty, bool lines, bool sweep);
/* Measurement i of n begins: size bytes, expect_s seconds if known (-D), else 0. */
void rb_progress_size(struct rb_progress *p, unsigned i, unsigned n, uint64_t size, double expect_s);
/*
 * A row is about to print: the line is erased and the ticker held off until
 * rb_progress_resume, so it cannot redraw between the erase and the row.
 */
void rb_progress_pause(struct rb_progress *p);
void rb_progress_resume(struct rb_progress *p);
/* The measurement ended: the line erased, nothing ticks until the next one begins. */
void rb_progress_idle(struct rb_progress *p);
/* After the sweep (or its failure): the line erased, the thread joined. */
void rb_progress_stop(struct rb_progress *p);

#endif
