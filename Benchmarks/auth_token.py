"""Makes an ES256 key, its key set file and an access token for Benchmarks/auth.sh.

usage: auth_token.py DIR ISSUER AUDIENCE: writes DIR/jwks.json, prints the token (valid 1 h).
"""

import json
import sys
import time

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

directory, issuer, audience = sys.argv[1:4]
key = ec.generate_private_key(ec.SECP256R1())
jwk = json.loads(ECAlgorithm.to_jwk(key.public_key()))
jwk.update({"kid": "bench-1", "use": "sig", "alg": "ES256"})
with open(f"{directory}/jwks.json", "w") as out:
    json.dump({"keys": [jwk]}, out)
now = int(time.time())
claims = {"iss": issuer, "sub": "auth0|bench-user", "aud": audience, "exp": now + 3600, "iat": now, "scope": "openid products:write"}
print(jwt.encode(claims, key, algorithm="ES256", headers={"kid": "bench-1", "typ": "at+jwt"}))
