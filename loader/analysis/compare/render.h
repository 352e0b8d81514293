/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render.h - the one renderer of the comparison model: text, Markdown,
 * HTML and CSV tables, one number formatter, one escaper per format.
 */
#ifndef FB_RENDER_H
#define FB_RENDER_H

#include <stdio.h>

#include "analysis/compare/cmpmodel.h"

enum fb_fmt { FB_FMT_TEXT, FB_FMT_MD, FB_FMT_CSV, FB_FMT_HTML };

/* Human numbers: "12.3 ns", "1.234 us"; "10,025"; "+4.2%"; "-" for NaN. */
void fb_fmt_ns(double ns, char *buf, size_t len);
void fb_fmt_count(double v, char *buf, size_t len);
void fb_fmt_pct(double pct, char *buf, size_t len);
/* v in m's unit: ns as time, counts with separators, others with the unit */
void fb_fmt_value(const struct fb_metric *m, double v, char *buf, size_t len);

/* s escaped for one format: HTML text/attribute, Markdown table cell, CSV field */
void fb_html_esc(FILE *f, const char *s);
void fb_md_esc(FILE *f, const char *s);
void fb_csv_esc(FILE *f, const char *s);

/* Writes the tables (text, md or html fragment) or the CSV. */
void fb_cmp_print(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt);

/* The two header lines compare and ab print above the text tables. */
void fb_cmp_print_header(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt);

/* One sentence saying which clock the times of c are in. */
const char *fb_cmp_clock_note(const struct fb_cmp *c);

#endif /* FB_RENDER_H */
