// SPDX-License-Identifier: GPL-2.0
/* html.c - the HTML page of the reports (html.h). */
#include "analysis/compare/html.h"
#include "analysis/compare/render.h"

void fb_html_begin(FILE *f, const char *title, const char *css)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	fb_html_esc(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head><body>\n", css);
}

void fb_html_end(FILE *f)
{
	fputs("</body></html>\n", f);
}
