# SPDX-License-Identifier: MIT
# Page-limit run: accounted pages, RSS and the cap against time, swap-outs on
# the right axis. file: series-pagelimit*.dat (columns t accounted_pages
# rss_pages cap_pages swapouts, a block per results file). Vars: file.
prefix = 'series'
load dirname . '/common.gp'
set title sprintf("page-limit run: %s", label_of(file))
set xlabel 'time (s)'
set ylabel '4 KiB pages'
set y2label 'swap-outs (cumulative)'
set ytics nomirror
set y2tics
set key bottom right
plot file using 1:4 with lines lw 2 dt 2 lc rgb '#cc0000' title 'cap', \
     file using 1:2 with lines lw 2 lc rgb '#0060ad' title 'accounted pages', \
     file using 1:3 with lines lw 2 lc rgb '#00a050' title 'RSS (pages)', \
     file using 1:5 axes x1y2 with lines lw 1 lc rgb '#888888' title 'swap-outs'
