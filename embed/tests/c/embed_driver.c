/*
 * The C side of tests/c_abi.rs: a small line-oriented driver of the C ABI,
 * compiled against the committed header (include/wr_core_embed.h) and
 * linked with the wr-core-embed staticlib.
 *
 * It reads one command per line on stdin and answers one line on stdout,
 * so that the Rust test can run every vector through it. Octet strings
 * travel hex-encoded ("-" is the empty string), numbers in decimal.
 *
 *   size                        -> <wr_fixed_policy_size()>
 *   parse fixed|owned TOKEN BODY -> <status>
 *   allowed PATH                -> <ret> <allowed> <overflow> <reading> <kind> <line> <PATTERN|null>
 *   delay                       -> <ret> <ms>
 *   count                       -> <ret>
 *   overflowed                  -> <ret>
 *   host HOST DOMAIN            -> <ret>
 *   hostany HOST DOMAIN...      -> <ret> <index|none>
 *   selftest                    -> ok <checks> | fail <what>
 *
 * Exit status: 0 at end of input, 2 on a command it cannot read.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wr_core_embed.h"

static _Alignas(WR_FIXED_POLICY_ALIGN) uint8_t storage[WR_FIXED_POLICY_SIZE];
static WrPolicy *owned = NULL;
static int mode_fixed = 0;

static void usage_error(const char *what) {
    fprintf(stderr, "embed_driver: %s\n", what);
    exit(2);
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes a hex field in place; "-" is empty. Returns its length. */
static size_t unhex(char *field) {
    if (strcmp(field, "-") == 0) return 0;
    size_t n = strlen(field);
    if (n % 2 != 0) usage_error("odd hex length");
    uint8_t *out = (uint8_t *)field;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = nibble(field[2 * i]), lo = nibble(field[2 * i + 1]);
        if (hi < 0 || lo < 0) usage_error("bad hex digit");
        out[i] = (uint8_t)(hi * 16 + lo);
    }
    return n / 2;
}

static void put_hex(const uint8_t *p, size_t n) {
    if (p == NULL) {
        fputs("null", stdout);
    } else if (n == 0) {
        fputs("-", stdout);
    } else {
        for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
    }
}

static const WrFixedPolicy *fixed(void) { return (const WrFixedPolicy *)(const void *)storage; }

static void release(void) {
    wr_policy_free(owned);
    owned = NULL;
}

static int selftest_checks = 0;
#define EXPECT(cond)                                  \
    do {                                              \
        selftest_checks++;                            \
        if (!(cond)) {                                \
            printf("fail %s (line %d)\n", #cond, __LINE__); \
            return;                                   \
        }                                             \
    } while (0)

/* What the vectors cannot express: null pointers, short or misaligned
 * storage, optional outputs, buffers from wr_buffer_alloc. */
static void selftest(void) {
    static const char body[] = "User-agent: *\nDisallow: /x\nCrawl-delay: 1.5\n";
    const uint8_t *b = (const uint8_t *)body;
    const uint8_t *tok = (const uint8_t *)"Bot";
    size_t size = wr_fixed_policy_size();
    WrVerdict v;
    uint64_t ms = 7;
    size_t index = 99;

    release();
    EXPECT(size <= WR_FIXED_POLICY_SIZE);
    EXPECT(wr_fixed_policy_parse(NULL, size, b, sizeof body - 1, tok, 3) == WR_ERR_NULL);
    EXPECT(wr_fixed_policy_parse(storage, size - 1, b, sizeof body - 1, tok, 3) == WR_ERR_BUFFER_TOO_SMALL);
    EXPECT(wr_fixed_policy_parse(storage + 1, size, b, sizeof body - 1, tok, 3) == WR_ERR_ALIGN);
    EXPECT(wr_fixed_policy_parse(storage, size, NULL, 4, tok, 3) == WR_ERR_NULL);
    EXPECT(wr_fixed_policy_parse(storage, size, b, sizeof body - 1, NULL, 0) == WR_ERR_EMPTY_TOKEN);
    EXPECT(wr_fixed_policy_parse(storage, size, b, sizeof body - 1, tok, 3) == WR_OK);
    mode_fixed = 1;
    EXPECT(wr_fixed_policy_allowed(fixed(), (const uint8_t *)"/x/1", 4, NULL) == 0);
    EXPECT(wr_fixed_policy_allowed(fixed(), (const uint8_t *)"/x/1", 4, &v) == 0);
    EXPECT(v.allowed == 0 && v.rule_kind == WR_RULE_DISALLOW && v.rule_line == 2);
    EXPECT(v.reading == WR_READING_SPEC && v.overflow == 0);
    EXPECT(v.pattern_len == 2 && memcmp(v.pattern, "/x", 2) == 0);
    EXPECT(wr_fixed_policy_allowed(fixed(), NULL, 0, &v) == 1 && v.rule_kind == WR_RULE_NONE);
    EXPECT(v.pattern == NULL && v.rule_line == 0);
    EXPECT(wr_fixed_policy_allowed(fixed(), NULL, 1, &v) == WR_ERR_NULL);
    EXPECT(wr_fixed_policy_allowed(NULL, (const uint8_t *)"/", 1, &v) == WR_ERR_NULL);
    EXPECT(wr_fixed_policy_crawl_delay_ms(fixed(), NULL) == WR_ERR_NULL);
    EXPECT(wr_fixed_policy_crawl_delay_ms(fixed(), &ms) == 1 && ms == 1500);
    EXPECT(wr_fixed_policy_rule_count(fixed()) == 1);
    EXPECT(wr_fixed_policy_overflowed(fixed()) == 0);

    WrPolicy *p = NULL;
    EXPECT(wr_policy_parse(b, sizeof body - 1, tok, 3, NULL) == WR_ERR_NULL);
    EXPECT(wr_policy_parse(b, sizeof body - 1, (const uint8_t *)"\xff", 1, &p) == WR_ERR_UTF8);
    EXPECT(p == NULL);
    EXPECT(wr_policy_parse(b, sizeof body - 1, tok, 3, &p) == WR_OK && p != NULL);
    EXPECT(wr_policy_allowed(p, (const uint8_t *)"/x", 2, &v) == 0 && v.rule_line == 2);
    EXPECT(wr_policy_allowed(p, (const uint8_t *)"/y", 2, NULL) == 1);
    EXPECT(wr_policy_crawl_delay_ms(p, &ms) == 1 && ms == 1500);
    EXPECT(wr_policy_rule_count(p) == 1);
    EXPECT(wr_policy_allowed(NULL, (const uint8_t *)"/", 1, &v) == WR_ERR_NULL);
    wr_policy_free(p);
    wr_policy_free(NULL);

    uint8_t *buf = wr_buffer_alloc(size);
    EXPECT(buf != NULL && ((uintptr_t)buf % WR_FIXED_POLICY_ALIGN) == 0);
    EXPECT(wr_fixed_policy_parse(buf, size, NULL, 0, tok, 3) == WR_OK);
    EXPECT(wr_fixed_policy_allowed((const WrFixedPolicy *)(const void *)buf, (const uint8_t *)"/", 1, NULL) == 1);
    wr_buffer_free(buf, size);
    EXPECT(wr_buffer_alloc(0) == NULL);

    const uint8_t *host = (const uint8_t *)"www.example.com";
    WrBytes list[2] = {{(const uint8_t *)"example.org", 11}, {(const uint8_t *)"example.com", 11}};
    EXPECT(wr_host_matches_domain(host, 15, (const uint8_t *)"example.com", 11) == 1);
    EXPECT(wr_host_matches_domain(NULL, 3, (const uint8_t *)"example.com", 11) == WR_ERR_NULL);
    EXPECT(wr_host_matches_any_domain(host, 15, list, 2, &index) == 1 && index == 1);
    EXPECT(wr_host_matches_any_domain(host, 15, list, 1, NULL) == 0);
    EXPECT(wr_host_matches_any_domain(host, 15, NULL, 2, &index) == WR_ERR_NULL);
    list[0].ptr = NULL;
    EXPECT(wr_host_matches_any_domain(host, 15, list, 2, &index) == WR_ERR_NULL);
    mode_fixed = 0;
    printf("ok %d\n", selftest_checks);
}

static char *next_field(char **rest) {
    char *f = strtok_r(NULL, " ", rest);
    if (f == NULL) usage_error("missing field");
    return f;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n') line[n - 1] = '\0';
        char *rest = NULL;
        char *cmd = strtok_r(line, " ", &rest);
        if (cmd == NULL) usage_error("empty line");
        if (strcmp(cmd, "size") == 0) {
            printf("%zu\n", wr_fixed_policy_size());
        } else if (strcmp(cmd, "parse") == 0) {
            char *mode = next_field(&rest);
            char *token = next_field(&rest);
            char *body = next_field(&rest);
            size_t token_len = unhex(token), body_len = unhex(body);
            const uint8_t *t = token_len ? (const uint8_t *)token : NULL;
            const uint8_t *b = body_len ? (const uint8_t *)body : NULL;
            int32_t status;
            release();
            if (strcmp(mode, "fixed") == 0) {
                mode_fixed = 1;
                status = wr_fixed_policy_parse(storage, sizeof storage, b, body_len, t, token_len);
            } else if (strcmp(mode, "owned") == 0) {
                mode_fixed = 0;
                status = wr_policy_parse(b, body_len, t, token_len, &owned);
            } else {
                usage_error("mode");
                return 2;
            }
            printf("%d\n", (int)status);
        } else if (strcmp(cmd, "allowed") == 0) {
            char *path = next_field(&rest);
            size_t len = unhex(path);
            WrVerdict v;
            memset(&v, 0xAA, sizeof v);
            int32_t ret = mode_fixed ? wr_fixed_policy_allowed(fixed(), (const uint8_t *)path, len, &v)
                                     : wr_policy_allowed(owned, (const uint8_t *)path, len, &v);
            printf("%d %u %u %u %u %lu ", (int)ret, v.allowed, v.overflow, v.reading, v.rule_kind,
                   (unsigned long)v.rule_line);
            put_hex(v.pattern, v.pattern_len);
            putchar('\n');
        } else if (strcmp(cmd, "delay") == 0) {
            uint64_t ms = 12345;
            int32_t ret = mode_fixed ? wr_fixed_policy_crawl_delay_ms(fixed(), &ms)
                                     : wr_policy_crawl_delay_ms(owned, &ms);
            printf("%d %llu\n", (int)ret, (unsigned long long)ms);
        } else if (strcmp(cmd, "count") == 0) {
            printf("%d\n", (int)(mode_fixed ? wr_fixed_policy_rule_count(fixed()) : wr_policy_rule_count(owned)));
        } else if (strcmp(cmd, "overflowed") == 0) {
            printf("%d\n", (int)wr_fixed_policy_overflowed(fixed()));
        } else if (strcmp(cmd, "host") == 0) {
            char *host = next_field(&rest);
            char *domain = next_field(&rest);
            size_t hl = unhex(host), dl = unhex(domain);
            printf("%d\n", (int)wr_host_matches_domain((const uint8_t *)host, hl, (const uint8_t *)domain, dl));
        } else if (strcmp(cmd, "hostany") == 0) {
            char *host = next_field(&rest);
            size_t hl = unhex(host);
            WrBytes list[16];
            size_t count = 0;
            char *d;
            while ((d = strtok_r(NULL, " ", &rest)) != NULL) {
                if (count == 16) usage_error("too many domains");
                list[count].len = unhex(d);
                list[count].ptr = (const uint8_t *)d;
                count++;
            }
            size_t index = (size_t)-1;
            int32_t ret = wr_host_matches_any_domain((const uint8_t *)host, hl, count ? list : NULL, count, &index);
            if (index == (size_t)-1) {
                printf("%d none\n", (int)ret);
            } else {
                printf("%d %zu\n", (int)ret, index);
            }
        } else if (strcmp(cmd, "selftest") == 0) {
            selftest();
        } else {
            usage_error("unknown command");
        }
        fflush(stdout);
    }
    release();
    free(line);
    return 0;
}
