/* SPDX-License-Identifier: BSD-2-Clause */
/* Strict number parsing, size lists and ranges, option rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "oob/hello.h"
#include "base/opts.h"
#include "base/parse.h"
#include "measure/sizes.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static void u64_good(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(rb_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rb_parse_u64("64", &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(rb_parse_u64("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rb_parse_u64("8m", &v), 0);
	assert_int_equal(v, 8u << 20);
	assert_int_equal(rb_parse_u64("1G", &v), 0);
	assert_int_equal(v, 1u << 30);
	assert_int_equal(rb_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void u64_bad(void **state)
{
	uint64_t v = 7;
	(void)state;
	assert_int_equal(rb_parse_u64("", &v), -EINVAL);
	assert_int_equal(rb_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(rb_parse_u64("+1", &v), -EINVAL);
	assert_int_equal(rb_parse_u64(" 1", &v), -EINVAL);
	assert_int_equal(rb_parse_u64("1x", &v), -EINVAL);
	assert_int_equal(rb_parse_u64("4KB", &v), -EINVAL);
	assert_int_equal(rb_parse_u64("0x10", &v), -EINVAL);
	assert_int_equal(rb_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(rb_parse_u64("17179869184G", &v), -ERANGE);
	assert_int_equal(v, 7); /* untouched on error */
	assert_int_equal(rb_parse_u64_range("0", 1, 10, &v), -ERANGE);
	assert_int_equal(rb_parse_u64_range("11", 1, 10, &v), -ERANGE);
	assert_int_equal(rb_parse_u64_range("10", 1, 10, &v), 0);
}

static void doubles(void **state)
{
	double d;
	(void)state;
	assert_int_equal(rb_parse_double("2.5", &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(rb_parse_double("-1", &d), -EINVAL);
	assert_int_equal(rb_parse_double("1e400", &d), -ERANGE);
	assert_int_equal(rb_parse_double("nan", &d), -EINVAL);
	assert_int_equal(rb_parse_double("3s", &d), -EINVAL);
}

static void size_lists(void **state)
{
	struct rb_sizes s;
	char buf[128];
	(void)state;
	assert_int_equal(rb_sizes_parse_list("64,4K,1M", &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[0], 64);
	assert_int_equal(s.v[1], 4096);
	assert_int_equal(s.v[2], 1 << 20);
	assert_string_equal(rb_sizes_fmt(&s, buf, sizeof(buf)), "64,4K,1M");
	assert_int_equal(rb_sizes_max(&s), 1 << 20);
	assert_int_equal(rb_sizes_parse_list("1000", &s), 0);
	assert_string_equal(rb_sizes_fmt(&s, buf, sizeof(buf)), "1000");
	assert_int_not_equal(rb_sizes_parse_list("", &s), 0);
	assert_int_not_equal(rb_sizes_parse_list("64,", &s), 0);
	assert_int_not_equal(rb_sizes_parse_list(",64", &s), 0);
	assert_int_not_equal(rb_sizes_parse_list("64,,128", &s), 0);
	assert_int_not_equal(rb_sizes_parse_list("0", &s), 0);
	assert_int_not_equal(rb_sizes_parse_list("2G", &s), 0); /* above RB_SIZE_MAX */
	assert_int_not_equal(rb_sizes_parse_list("64,abc", &s), 0);
}

static void size_ranges(void **state)
{
	struct rb_sizes s;
	(void)state;
	assert_int_equal(rb_sizes_parse_range("2:8M", &s), 0);
	assert_int_equal(s.n, 23);
	assert_int_equal(s.v[0], 2);
	assert_int_equal(s.v[22], 8 << 20);
	rb_sizes_all(&s);
	assert_int_equal(s.n, 23);
	assert_int_equal(rb_sizes_parse_range("4K:4K", &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_not_equal(rb_sizes_parse_range("8:2", &s), 0);
	assert_int_not_equal(rb_sizes_parse_range("3:8", &s), 0);
	assert_int_not_equal(rb_sizes_parse_range("2:9", &s), 0);
	assert_int_not_equal(rb_sizes_parse_range("2", &s), 0);
	assert_int_not_equal(rb_sizes_parse_range(":8", &s), 0);
	assert_int_not_equal(rb_sizes_parse_range("1:2G", &s), 0);
}

/* ---- option rows ---- */

struct t_opts {
	uint32_t num, qps, timeout;
	bool flag;
	const char *str;
};
static struct t_opts o;
static const struct rb_opt rows[] = {
    {.name = "num",
     .key = 'n',
     .type = RB_OPT_U32,
     .off = offsetof(struct t_opts, num),
     .arg = "N",
     .help = "a number",
     .min = 1,
     .max = 100},
    {.name = "flag", .key = 'f', .type = RB_OPT_FLAG, .off = offsetof(struct t_opts, flag), .help = "a flag"},
    {.name = "str", .type = RB_OPT_STR, .off = offsetof(struct t_opts, str), .arg = "S", .help = "a string"},
    {.name = "qps",
     .key = 'q',
     .type = RB_OPT_U32,
     .off = offsetof(struct t_opts, qps),
     .arg = "N",
     .help = "QPs",
     .min = 1,
     .max = 100},
    {.name = "timeout",
     .type = RB_OPT_U32,
     .off = offsetof(struct t_opts, timeout),
     .arg = "SEC",
     .help = "a timeout",
     .min = 1,
     .max = 100},
    {0},
};

static struct rb_opts_given given;

/* A dialect as data: two spellings of ours (one of an option this tool lacks), a letter, a hint. */
static const struct rb_opt_alias other_aliases[] = {
    {"qp", 0, "qps"}, {"post_list", 0, "post-list"}, {NULL, 'Q', "qps"}, {NULL, 0, NULL}};
static const struct rb_opt_hint other_hints[] = {{"odp", "not measured here"}, {NULL, NULL}};
static const struct rb_dialect other = {"othertool", other_aliases, other_hints, NULL};
static const struct rb_dialect *dialect = &other;

static int parse(int argc, char **argv)
{
	struct rb_opt_table tables[] = {{"Test", rows, &o, true, dialect}, rb_common_opts()};
	memset(&o, 0, sizeof(o));
	memset(&given, 0, sizeof(given));
	return rb_opts_parse(tables, 2, argc, argv, "t [options]", &given);
}

static void opt_rows(void **state)
{
	char *a1[] = {"t", "-n", "5", "-f", "--str=hi", "host", NULL};
	char *a2[] = {"t", "--num", "101", NULL};
	char *a3[] = {"t", "--num", "5x", NULL};
	char *a4[] = {"t", "--bogus", NULL};
	char *a5[] = {"t", "-n", NULL};
	char *a6[] = {"t", "--num=1K", NULL};
	(void)state;
	assert_int_equal(parse(6, a1), 5);
	assert_int_equal(o.num, 5);
	assert_true(o.flag);
	assert_string_equal(o.str, "hi");
	/* Given, whatever the value: a default is not "given". */
	assert_true(rb_opts_given(&given, &o.num) && rb_opts_given(&given, &o.flag));
	assert_true(rb_opts_given(&given, &o.str));
	{
		char *a7[] = {"t", "-f", NULL};
		assert_int_equal(parse(2, a7), 2);
		assert_false(rb_opts_given(&given, &o.num));
		assert_true(rb_opts_given(&given, &o.flag));
	}
	assert_int_equal(parse(3, a2), RB_OPTS_ERROR);
	assert_int_equal(parse(3, a3), RB_OPTS_ERROR);
	assert_int_equal(parse(2, a4), RB_OPTS_ERROR);
	assert_int_equal(parse(2, a5), RB_OPTS_ERROR);
	assert_int_equal(parse(2, a6), RB_OPTS_ERROR); /* 1024 > 100 */
}

/* Long names match exactly (getopt's prefixes are refused); a table's dialect brings its aliases. */
static void opt_exact_and_aliases(void **state)
{
	char *letter[] = {"t", "-Q", "6", NULL};
	char *hinted[] = {"t", "--odp", NULL};
	char *abbrev[] = {"t", "--time", "3", NULL};
	char *prefix[] = {"t", "--nu=3", NULL};
	char *alias[] = {"t", "--qp", "4", NULL};
	char *alias_eq[] = {"t", "--qp=5", NULL};
	char *no_alias[] = {"t", "--post_list", "2", NULL}; /* an alias of an option this tool lacks */
	char *flag_value[] = {"t", "--flag=1", NULL};
	(void)state;
	assert_int_equal(parse(3, abbrev), RB_OPTS_ERROR);
	assert_false(rb_opts_given(&given, &o.timeout));
	assert_int_equal(parse(2, prefix), RB_OPTS_ERROR);
	assert_int_equal(parse(3, alias), 3);
	assert_int_equal(o.qps, 4);
	assert_true(rb_opts_given(&given, &o.qps));
	assert_int_equal(parse(2, alias_eq), 2);
	assert_int_equal(o.qps, 5);
	assert_int_equal(parse(3, no_alias), RB_OPTS_ERROR);
	assert_int_equal(parse(2, flag_value), RB_OPTS_ERROR);
	assert_int_equal(parse(3, letter), 3);
	assert_int_equal(o.qps, 6);
	assert_int_equal(parse(2, hinted), RB_OPTS_ERROR);
	/* Without the dialect its spellings are unknown. */
	dialect = NULL;
	assert_int_equal(parse(3, alias), RB_OPTS_ERROR);
	assert_int_equal(parse(3, letter), RB_OPTS_ERROR);
	dialect = &other;
}

/* Options after the host, short clusters, attached values and "--", as with GNU getopt. */
static void opt_words(void **state)
{
	char *after[] = {"t", "host", "-n", "7", "--str", "x", NULL};
	char *cluster[] = {"t", "-fn7", "-q", "3", NULL};
	char *dashdash[] = {"t", "-f", "--", "-n", NULL};
	(void)state;
	assert_int_equal(parse(6, after), 5);
	assert_string_equal(after[5], "host");
	assert_int_equal(o.num, 7);
	assert_string_equal(o.str, "x");
	assert_int_equal(parse(4, cluster), 4);
	assert_true(o.flag);
	assert_int_equal(o.num, 7);
	assert_int_equal(o.qps, 3);
	assert_int_equal(parse(4, dashdash), 3);
	assert_string_equal(dashdash[3], "-n");
	assert_int_equal(o.num, 0);
	{
		/* Permuted, nothing lost: the option words first, then the positional ones in order. */
		char *mixed[] = {"t", "a", "-n", "5", "b", NULL};
		assert_int_equal(parse(5, mixed), 3);
		assert_string_equal(mixed[1], "-n");
		assert_string_equal(mixed[2], "5");
		assert_string_equal(mixed[3], "a");
		assert_string_equal(mixed[4], "b");
	}
	{
		char *help_value[] = {"t", "--help=x", NULL};
		char *empty[] = {"t", "--str=", NULL};
		char *empty2[] = {"t", "--str", "", NULL};
		assert_int_equal(parse(2, help_value), RB_OPTS_ERROR);
		assert_int_equal(parse(2, empty), RB_OPTS_ERROR);
		assert_int_equal(parse(3, empty2), RB_OPTS_ERROR);
		assert_null(o.str);
	}
}

/* A server takes the client's test options it was not given; a group is one choice; local ones stay. */
static void opt_export_adopt(void **state)
{
	struct g_opts {
		uint32_t n, warm, tmo;
		double dur;
	} cli, srv;
	static const struct rb_opt grow[] = {
	    {.name = "iters",
	     .key = 'n',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct g_opts, n),
	     .arg = "N",
	     .help = "",
	     .min = 1,
	     .max = 1000,
	     .flags = RB_OPT_GROUP(1)},
	    {.name = "duration",
	     .key = 'D',
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct g_opts, dur),
	     .arg = "S",
	     .help = "",
	     .max = 100,
	     .flags = RB_OPT_GROUP(1)},
	    {.name = "warmup",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct g_opts, warm),
	     .arg = "N",
	     .help = "",
	     .max = 1000},
	    {.name = "timeout",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct g_opts, tmo),
	     .arg = "S",
	     .help = "",
	     .min = 1,
	     .max = 100,
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	struct rb_opts_given gc = {0}, gs = {0};
	static struct rb_hello h;
	char *ca[] = {"t", "-D", "5", "--warmup", "7", "--timeout", "9", "host", NULL};
	char *sa[] = {"t", "-n", "10", NULL};
	char *sb[] = {"t", NULL};
	struct rb_opt_table tc = {"Test", grow, &cli, true, NULL}, ts = {"Test", grow, &srv, true, NULL};
	(void)state;
	memset(&cli, 0, sizeof(cli));
	memset(&h, 0, sizeof(h));
	assert_int_equal(rb_opts_parse(&tc, 1, 8, ca, "t", &gc), 7);
	assert_int_equal(rb_opts_export(&tc, 1, &gc, &h), 0);
	assert_int_equal(h.nargs, 2); /* --timeout is local: it does not travel */
	assert_string_equal(h.args[0].key, "duration");
	assert_string_equal(h.args[0].val, "5");
	assert_string_equal(h.args[1].key, "warmup");
	/* A server given -n keeps it and takes no -D (one choice); it takes --warmup. */
	memset(&srv, 0, sizeof(srv));
	assert_int_equal(rb_opts_parse(&ts, 1, 3, sa, "t", &gs), 3);
	assert_true(rb_opts_adopt_takes(&ts, 1, &gs, &h));
	assert_int_equal(rb_opts_adopt(&ts, 1, &gs, &h), 0);
	assert_true(srv.n == 10 && srv.dur == 0 && srv.warm == 7 && srv.tmo == 0);
	assert_true(rb_opts_given(&gs, &srv.warm)); /* taken counts as given from then on */
	/* A server given -n and --warmup takes nothing: its set-up stands. */
	{
		char *sc[] = {"t", "-n", "10", "--warmup", "3", NULL};
		struct rb_opts_given g3 = {0};

		assert_int_equal(rb_opts_parse(&ts, 1, 5, sc, "t", &g3), 5);
		assert_false(rb_opts_adopt_takes(&ts, 1, &g3, &h));
	}
	/* A server given nothing takes both. */
	memset(&srv, 0, sizeof(srv));
	memset(&gs, 0, sizeof(gs));
	assert_int_equal(rb_opts_parse(&ts, 1, 1, sb, "t", &gs), 1);
	assert_int_equal(rb_opts_adopt(&ts, 1, &gs, &h), 0);
	assert_true(srv.n == 0 && srv.dur == 5 && srv.warm == 7);
	/* A name that is no shared option here, or a value refused here, is the client's error. */
	assert_int_equal(rb_hello_arg_add(&h, "timeout", "3"), 0);
	assert_true(rb_opts_adopt_takes(&ts, 1, &gs, &h)); /* an unknown option: the full path refuses it */
	assert_int_equal(rb_opts_adopt(&ts, 1, &gs, &h), -EINVAL);
	h.nargs = 1;
	strcpy(h.args[0].val, "500");
	memset(&gs, 0, sizeof(gs));
	assert_int_equal(rb_opts_adopt(&ts, 1, &gs, &h), -EINVAL);
}

/* Bytes for people: whole binary units without a decimal, the rest with one. */
static void fmt_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(rb_fmt_bytes(64, b, sizeof(b)), "64 B");
	assert_string_equal(rb_fmt_bytes(2097152, b, sizeof(b)), "2 MiB");
	assert_string_equal(rb_fmt_bytes(1073741824.0, b, sizeof(b)), "1 GiB");
	assert_string_equal(rb_fmt_bytes(3000, b, sizeof(b)), "2.9 KiB");
	assert_string_equal(rb_fmt_bytes(1.5 * 1099511627776.0, b, sizeof(b)), "1.5 TiB");
}

/* Counter sums a peer feeds: held at the top, never wrapped to a small figure. */
static void u64_sat_add(void **state)
{
	(void)state;
	assert_int_equal(rb_u64_sat_add(2, 3), 5);
	assert_true(rb_u64_sat_add(UINT64_MAX - 1, 1) == UINT64_MAX);
	assert_true(rb_u64_sat_add(UINT64_MAX - 1, 5) == UINT64_MAX);
	assert_true(rb_u64_sat_add(7, UINT64_MAX) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(u64_good),
	    cmocka_unit_test(u64_bad),
	    cmocka_unit_test(doubles),
	    cmocka_unit_test(size_lists),
	    cmocka_unit_test(size_ranges),
	    cmocka_unit_test(opt_rows),
	    cmocka_unit_test(opt_exact_and_aliases),
	    cmocka_unit_test(opt_words),
	    cmocka_unit_test(opt_export_adopt),
	    cmocka_unit_test(fmt_bytes),
	    cmocka_unit_test(u64_sat_add),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
