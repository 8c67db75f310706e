/* test_chttp: collector/fleet/chttp.c without a server. URLs: defaults, port, database, and
 * each malformed one refused with a message naming it; chttp_sql_quote makes string literals
 * ClickHouse reads back as the text (quote and backslash escaped, nothing else touched);
 * chttp_tsv_escape escapes TabSeparated's three specials; an unreachable server is named. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chttp.h"
#include "harness.h"

static void test_url(void)
{
    struct chttp_url u;
    char err[256];
    CHECK(chttp_url_parse("http://ch", &u, err, sizeof(err)) == 0);
    CHECK(strcmp(u.host, "ch") == 0 && strcmp(u.port, CHTTP_DEFAULT_PORT) == 0 &&
          strcmp(u.db, CHTTP_DEFAULT_DB) == 0 && u.params[0] == 0);
    CHECK(chttp_url_parse("http://10.0.0.2:9000/fleet_1/", &u, err, sizeof(err)) == 0);
    CHECK(strcmp(u.host, "10.0.0.2") == 0 && strcmp(u.port, "9000") == 0 &&
          strcmp(u.db, "fleet_1") == 0);
    static const char *const bad[] = {"https://ch", "ch:8123", "http://", "http://ch:0",
                                      "http://ch:70000", "http://ch:12x", "http://ch/a-b",
                                      "http://ch/a;DROP"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        CHECK(chttp_url_parse(bad[i], &u, err, sizeof(err)) == -EINVAL);
        CHECK(strstr(err, bad[i]) != NULL || strstr(err, "--db") != NULL);
    }
}

static void test_quote(void)
{
    char *b = NULL;
    size_t len = 0, cap = 0;
    CHECK(chttp_sql_quote(&b, &len, &cap, "plain") == 0);
    CHECK(strcmp(b, "'plain'") == 0 && len == 7);
    len = 0;
    CHECK(chttp_sql_quote(&b, &len, &cap, "it's a\\b\tc") == 0);
    CHECK(strcmp(b, "'it\\'s a\\\\b\tc'") == 0);
    len = 0;
    CHECK(chttp_sql_quote(&b, &len, &cap, "") == 0);
    CHECK(strcmp(b, "''") == 0);
    len = 0;
    CHECK(chttp_tsv_escape(&b, &len, &cap, "a\tb\nc\\d'e") == 0);
    CHECK(strcmp(b, "a\\tb\\nc\\\\d'e") == 0);
    free(b);
}

static void test_unreachable(void)
{
    struct chttp_url u;
    char err[256];
    /* port 1 on loopback: nothing listens there */
    CHECK(chttp_url_parse("http://127.0.0.1:1/x", &u, err, sizeof(err)) == 0);
    char *out = (char *)1;
    int rc = chttp_query(&u, 0, "SELECT 1", NULL, 0, &out, NULL, err, sizeof(err));
    CHECK(rc < 0 && out == NULL);
    CHECK(strstr(err, "cannot reach ClickHouse at http://127.0.0.1:1/x") != NULL);
}

int main(void)
{
    test_url();
    test_quote();
    test_unreachable();
    return harness_result("test_chttp");
}
