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
plot for [f in files] f using 1:2:3:4 with yerrorlines lw 2 pt 7 title label_of(f)
