/* SPDX-License-Identifier: BSD-3-Clause */
/* The XML configuration reader (libxml2). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>
#include <unistd.h>

#include "tf_config.h"

/* The element's text without surrounding blanks, into buf. */
static void element_text(xmlNode *n, char *buf, size_t size)
{
    xmlChar *text = xmlNodeGetContent(n);
    const char *s = text ? (const char *)text : "";
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t len = strlen(s);
    while (len && strchr(" \t\r\n", s[len - 1]))
        len--;
    if (len >= size)
        len = size - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    xmlFree(text);
}

/* The first error libxml2 raised while parsing: the cause, where later
 * ones are consequences ("Premature end of data" after an undecodable
 * byte).  libxml2 hands errors without a parser context (encoding, I/O) to
 * its global handler, which prints them to stderr even under
 * XML_PARSE_NOERROR; a structured handler receives those and the parser's
 * own, so that the user reads one message, ours. */
struct first_error {
    int  line;
    bool any;
    char message[300];
};

static void keep_first_error(void *ctx, xmlErrorPtr e)
{
    struct first_error *first = ctx;
    if (first->any || !e || e->level == XML_ERR_WARNING)
        return;
    first->any = true;
    first->line = e->line;
    const char *m = e->message ? e->message : "";
    snprintf(first->message, sizeof first->message, "%.*s", (int)strcspn(m, "\n"), m);
}

static xmlDocPtr parse(xmlParserCtxtPtr ctx, int fd, const char *path, struct first_error *first)
{
    xmlStructuredErrorFunc saved = xmlStructuredError;
    void *saved_ctx = xmlStructuredErrorContext;
    xmlSetStructuredErrorFunc(first, keep_first_error);
    xmlDocPtr doc = xmlCtxtReadFd(ctx, fd, path, NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlSetStructuredErrorFunc(saved_ctx, saved);
    return doc;
}

int tf_config_load(const char *path, tf_options *o, tf_error *err)
{
    /* Opened here so that a missing file is our message, not libxml2's
     * warning on stderr. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot read the configuration file: %s", path,
                       strerror(errno));
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx) {
        close(fd);
        return tf_fail(err, TF_ERR_NOMEM, "%s: cannot start the XML parser", path);
    }
    struct first_error first = { 0 };
    xmlDocPtr doc = parse(ctx, fd, path, &first);
    close(fd);
    int rc = 0;
    if (!doc || first.any) {
        /* An error without a line (an undecodable byte) is placed where the
         * parser stopped. */
        const xmlError *last = xmlCtxtGetLastError(ctx);
        int line = first.line > 0 ? first.line : last && last->line > 0 ? last->line : 1;
        if (!first.any)
            rc = tf_fail(err, TF_ERR_IO, "%s: cannot read the configuration file", path);
        else
            rc = tf_fail(err, TF_ERR_FORMAT, "%s:%d: invalid XML: %s", path, line,
                         first.message);
        xmlFreeDoc(doc);
        xmlFreeParserCtxt(ctx);
        return rc;
    }
    bool *seen = NULL;
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, "tracefold")) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s:%ld: the root element must be <tracefold>", path,
                     root ? xmlGetLineNo(root) : 1L);
        goto done;
    }
    /* A list option given in several elements adds up, as its flags do. */
    seen = calloc(tf_option_count, sizeof *seen);
    if (!seen) {
        rc = tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (xmlNode *n = root->children; n && !rc; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const tf_option_desc *d = tf_option_find((const char *)n->name);
        if (!d) {
            rc = tf_fail(err, TF_ERR_FORMAT, "%s:%ld: unknown option <%s>", path,
                         xmlGetLineNo(n), (const char *)n->name);
            break;
        }
        char value[1100];
        element_text(n, value, sizeof value);
        if ((rc = tf_option_add(o, d, value, seen[d - tf_option_table], err)))
            tf_error_prefix(err, "%s:%ld: ", path, xmlGetLineNo(n));
        seen[d - tf_option_table] = true;
    }
done:
    free(seen);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    return rc;
}
