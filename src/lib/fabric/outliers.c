#include "outliers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const struct rb_pair_result *p, uint32_t np)
{
	double *v = malloc(sizeof(*v) * (np ? np : 1)), m;
	uint32_t k = 0;

	if (!v)
		return NAN;
	for (uint32_t i = 0; i < np; i++)
		if (!isnan(p[i].value))
			v[k++] = p[i].value;
	qsort(v, k, sizeof(*v), cmp_dbl);
	m = k == 0 ? NAN : k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	free(v);
	return m;
}

double rb_outliers(struct rb_pair_result *p, uint32_t np, uint32_t n, double frac, bool lower_better,
                   bool directional, struct rb_rank_tally *tally)
{
	double med = median(p, np);

	memset(tally, 0, sizeof(*tally) * n);
	for (uint32_t i = 0; i < np; i++) {
		uint32_t ends[2] = {p[i].server, p[i].client};
		bool failed = isnan(p[i].value);

		p[i].slow = !failed && !isnan(med) &&
		            (lower_better ? p[i].value * frac > med : p[i].value < frac * med);
		for (int e = 0; e < 2; e++) {
			if (ends[e] >= n)
				continue;
			tally[ends[e]].failed += failed;
			tally[ends[e]].measured += !failed;
			tally[ends[e]].slow += p[i].slow;
			/* ends[1] is the client: role 0 */
			tally[ends[e]].measured_as[1 - e] += !failed;
			tally[ends[e]].slow_as[1 - e] += p[i].slow;
		}
	}
	for (uint32_t r = 0; r < n; r++) {
		const struct rb_rank_tally *t = &tally[r];

		tally[r].suspect =
		    t->slow * 2 > t->measured || (directional && (t->slow_as[0] * 2 > t->measured_as[0] ||
		                                                  t->slow_as[1] * 2 > t->measured_as[1]));
	}
	return med;
}
