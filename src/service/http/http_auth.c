/*
 * service/http/http_auth.c - the bearer token check of serve's endpoints:
 * the compare takes the same time wherever the first difference lies, so
 * the answer's timing does not tell a prober how much of a guess was
 * right. The dashboard's session cookie is checked the same way.
 */
#define ZB_MODULE "http"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "service/http/http.h"

int zb_http_token_eq(const char *guess, const char *token)
{
    const unsigned char *got = (const unsigned char *)guess, *want;
    size_t n_got, n_want, i;
    unsigned diff;

    if (guess == NULL || token == NULL || token[0] == '\0')
        return 0;
    want = (const unsigned char *)token;
    n_got = strlen((const char *)got);
    n_want = strlen(token);
    /* every byte of the token is compared whatever the guess's length */
    diff = (unsigned)(n_got != n_want);
    for (i = 0; i < n_want; i++)
        diff |= (unsigned)(want[i] ^ (i < n_got ? got[i] : 0u));
    return diff == 0;
}

int zb_http_bearer_ok(const char *authorization, const char *token)
{
    if (authorization == NULL || token == NULL || token[0] == '\0')
        return 0;
    if (strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    authorization += 7;
    while (*authorization == ' ')
        authorization++;
    return zb_http_token_eq(authorization, token);
}
