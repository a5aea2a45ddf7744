/* SPDX-License-Identifier: MIT */
/*
 * ttm-compare-run.h - the paired A/B mode of ttm-compare (ttm-compare-run.c).
 */
#ifndef TTM_COMPARE_RUN_H
#define TTM_COMPARE_RUN_H

/**
 * ttm_compare_run() - `ttm-compare --run A B ...`: build or find both sides,
 * run their benchmarks alternately in rounds and judge the paired changes.
 * @argc: arguments after "--run", counted from 1 as main()'s.
 * @argv: those arguments; @argv[0] names the mode.
 *
 * Return: the exit status: 0 nothing regressed, 1 a regression, 2 bad usage
 * or a side that could not be built or run.
 */
int ttm_compare_run(int argc, char **argv);

#endif /* TTM_COMPARE_RUN_H */
