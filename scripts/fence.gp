# SPDX-License-Identifier: MIT
# Fence throughput against threads, one curve per case; files: "threads
# median min max". Vars: files.
prefix = 'fence'
load dirname . '/common.gp'
set title 'fence create + signal + wait + put: throughput against threads (median, min-max)'
set xlabel 'threads'
set ylabel 'fences/s (all threads)'
set xtics 1
set yrange [0:*]
set offsets 0.3, 0.3, 0, 0
# Issue 7's target, for the single-threaded core path (the t=1 points).
set arrow from graph 0, first 20e6 to graph 1, first 20e6 nohead dt 2 lc rgb '#888888'
set label 'target >= 20 M/s at 1 thread' at graph 0.98, first 20e6 right offset 0, 0.6 tc rgb '#666666'
plot for [f in files] f using 1:2:3:4 with yerrorlines lw 2 pt 7 title label_of(f)
