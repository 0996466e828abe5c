/* The meta block every result document carries: host, kernel, library versions. */
#ifndef RB_SYSINFO_H
#define RB_SYSINFO_H

#include "report.h"

void rb_meta_system(struct rb_row *meta, const char *tool);

#endif
