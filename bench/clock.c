/* SPDX-License-Identifier: Apache-2.0
 * Measures the clock one core actually runs at: a chain of dependent
 * 64-bit multiplies takes 3 cycles each on x86-64 cores (Intel since
 * Nehalem, AMD since Zen), so multiplies per second times 3 is cycles per
 * second. Prints GHz, the best of five runs. (A chain of adds, used
 * before, is not safe: Intel's Golden Cove and later cores fold an add of
 * an immediate at rename and retire more than one a cycle, which read as
 * 7 GHz on a 3.5 GHz VM. The VM's /proc/cpuinfo shows the nominal TSC
 * rate, not the boost clock the FMA units run at; perf_bench.py uses this
 * for the peak.) */
#include <stdio.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  const long iterations = 20000000; /* 8 dependent multiplies each */
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    long x = 3;
    double t0 = seconds();
    for (long i = 0; i < iterations; ++i)
      __asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
                       "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
                       "imul %0, %0\n\timul %0, %0"
                       : "+r"(x));
    double ghz = 3.0 * 8.0 * iterations / (seconds() - t0) / 1e9;
    if (ghz > best)
      best = ghz;
  }
  printf("%.3f\n", best);
  return 0;
}
