#include "sysinfo.h"

#include "rb_config.h"

#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void rb_meta_system(struct rb_row *meta, const char *tool)
{
	struct utsname u;
	char host[256] = "unknown", when[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rb_row_str(meta, "tool", NULL, tool);
	rb_row_str(meta, "version", NULL, RB_VERSION);
	rb_row_str(meta, "date", NULL, when);
	rb_row_str(meta, "host", NULL, host);
	rb_row_str(meta, "kernel", NULL, uname(&u) ? "unknown" : u.release);
	rb_row_str(meta, "rdma_core_version", NULL, RB_IBVERBS_VERSION);
}
