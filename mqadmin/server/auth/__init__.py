"""ACL 2.0 authentication and authorization on the embedded servers (``mqadmin dev up --auth FILE``)."""
