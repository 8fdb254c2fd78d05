"""ACL 2.0 user and ACL commands (RocketMQ 5.3+): createUser … listUser, createAcl … listAcl, copyUser, copyAcl."""
