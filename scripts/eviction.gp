# SPDX-License-Identifier: MIT
# Eviction figure against working set / capacity, one curve per access
# pattern; files: "ratio median min max" per pattern. Vars: files, ylab.
prefix = (strstrt(files, '/moved-') ? 'moved' : 'evict')
load dirname . '/common.gp'
set title sprintf("eviction thrash: %s against working set / capacity (median, min-max)", ylab)
set xlabel 'working set / capacity'
set ylabel ylab
set logscale x 2
set yrange [0:*]
set key bottom left
set xtics (0.5, 0.75, 1, 1.5, 2, 3, 4)
set arrow from 1, graph 0 to 1, graph 1 nohead dt 2 lc rgb '#888888'
plot for [f in files] f using 1:2:3:4 with yerrorlines lw 2 title label_of(f)
