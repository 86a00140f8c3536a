/* SPDX-License-Identifier: Apache-2.0
 * Measures the clock one core actually runs at: a chain of dependent
 * integer adds retires one add per cycle on every x86-64 core, so adds per
 * second is cycles per second. Prints GHz, the best of five runs.
 * (The VM's /proc/cpuinfo shows the nominal TSC rate, not the boost clock
 * the FMA units run at; perf_bench.py uses this for the peak.) */
#include <stdio.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  const long iterations = 50000000; /* 8 dependent adds each */
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    long x = 0;
    double t0 = seconds();
    for (long i = 0; i < iterations; ++i)
      __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                       "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                       : "+r"(x));
    double ghz = 8.0 * iterations / (seconds() - t0) / 1e9;
    if (ghz > best)
      best = ghz;
  }
  printf("%.3f\n", best);
  return 0;
}
