/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main() for a fuzz target where libFuzzer is not available (a gcc build): runs
 * every file named, or every file in each directory named, through the target
 * once. The seed corpus and the saved crash inputs stay regression tests.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path, unsigned *runs)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		goto fail;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		goto fail;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	(*runs)++;
	return 0;
fail:
	if (f)
		fclose(f);
	free(buf);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (argv[i][0] == '-')
			continue; /* libFuzzer flags: ignored here */
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i], &runs))
				return 1;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		while ((e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path, &runs)) {
				closedir(d);
				return 1;
			}
		}
		closedir(d);
	}
	printf("replay: %u inputs, no failure\n", runs);
	return runs ? 0 : 1;
}
