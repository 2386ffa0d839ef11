#include "ticket_keys.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

typedef struct {
    unsigned char name[16];
    unsigned char hmac[32];
    unsigned char aes[32];
} ticket_key;

typedef struct {
    size_t count;
    ticket_key keys[];
} ticket_keys;

enum { key_bytes = 80 };

static int keys_index = -1;
static pthread_once_t keys_index_once = PTHREAD_ONCE_INIT;

static void free_keys(void *parent, void *pointer, CRYPTO_EX_DATA *data, int index, long argl, void *argp) {
    (void)parent; (void)data; (void)index; (void)argl; (void)argp;
    ticket_keys *keys = pointer;
    if (keys != NULL) {
        OPENSSL_cleanse(keys, sizeof(ticket_keys) + keys->count * sizeof(ticket_key));
        free(keys);
    }
}

static void make_keys_index(void) {
    keys_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_keys);
}

// OpenSSL's ticket callback (SSL_CTX_set_tlsext_ticket_key_evp_cb). Sealing: the first key
// and a random IV. Opening: the key the ticket names; 2 (open, and issue a new ticket under
// the first key) when it is not the first; 0 (full handshake) when no key has that name.
static int ticket_callback(SSL *ssl, unsigned char key_name[16], unsigned char iv[EVP_MAX_IV_LENGTH],
                           EVP_CIPHER_CTX *cipher, EVP_MAC_CTX *mac, int seal) {
    const ticket_keys *keys = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), keys_index);
    if (keys == NULL || keys->count == 0) {
        return -1;
    }
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    if (seal) {
        const ticket_key *key = &keys->keys[0];
        if (RAND_bytes(iv, 16) != 1) {
            return -1;
        }
        memcpy(key_name, key->name, sizeof(key->name));
        if (EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, key->aes, iv) != 1
            || EVP_MAC_init(mac, key->hmac, sizeof(key->hmac), params) != 1) {
            return -1;
        }
        return 1;
    }
    for (size_t i = 0; i < keys->count; i++) {
        const ticket_key *key = &keys->keys[i];
        if (memcmp(key_name, key->name, sizeof(key->name)) != 0) {
            continue;
        }
        if (EVP_MAC_init(mac, key->hmac, sizeof(key->hmac), params) != 1
            || EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, key->aes, iv) != 1) {
            return -1;
        }
        return i == 0 ? 1 : 2;
    }
    return 0;
}

int gateway_ctx_set_ticket_keys(SSL_CTX *ctx, const unsigned char *bytes, size_t count) {
    pthread_once(&keys_index_once, make_keys_index);
    if (keys_index < 0 || count == 0) {
        return 0;
    }
    ticket_keys *keys = malloc(sizeof(ticket_keys) + count * sizeof(ticket_key));
    if (keys == NULL) {
        return 0;
    }
    keys->count = count;
    for (size_t i = 0; i < count; i++) {
        memcpy(keys->keys[i].name, bytes + i * key_bytes, 16);
        memcpy(keys->keys[i].hmac, bytes + i * key_bytes + 16, 32);
        memcpy(keys->keys[i].aes, bytes + i * key_bytes + 48, 32);
    }
    if (SSL_CTX_set_ex_data(ctx, keys_index, keys) != 1) {
        free_keys(NULL, keys, NULL, 0, 0, NULL);
        return 0;
    }
    return SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_callback) == 1;
}
