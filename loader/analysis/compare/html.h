/* SPDX-License-Identifier: GPL-2.0 */
/*
 * html.h - the self-contained HTML page that report, history report and
 * the per-patch attribution report write (html.c): one head, inline CSS.
 */
#ifndef FB_HTML_H
#define FB_HTML_H

#include <stdio.h>

/*
 * Doctype, charset, the title (escaped) and the page's inline CSS, up to
 * and including <body>; fb_html_end() closes the page.
 */
void fb_html_begin(FILE *f, const char *title, const char *css);
void fb_html_end(FILE *f);

#endif /* FB_HTML_H */
