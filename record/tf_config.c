/* SPDX-License-Identifier: BSD-3-Clause */
/* The XML configuration reader (libxml2). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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
    xmlDocPtr doc = xmlCtxtReadFd(ctx, fd, path, NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    close(fd);
    int rc = 0;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        if (!e)
            rc = tf_fail(err, TF_ERR_IO, "%s: cannot read the configuration file", path);
        else
            rc = tf_fail(err, TF_ERR_FORMAT, "%s:%d: invalid XML: %.*s", path, e->line,
                         e->message ? (int)strcspn(e->message, "\n") : 0,
                         e->message ? e->message : "");
        xmlFreeParserCtxt(ctx);
        return rc;
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, "tracefold")) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s:%ld: the root element must be <tracefold>", path,
                     root ? xmlGetLineNo(root) : 1L);
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
        if ((rc = tf_option_set(o, d, value, err)))
            tf_error_prefix(err, "%s:%ld: ", path, xmlGetLineNo(n));
    }
done:
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    return rc;
}
