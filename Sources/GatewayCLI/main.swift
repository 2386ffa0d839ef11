// Replaced by the gateway command in the next commit.
print("gateway")
