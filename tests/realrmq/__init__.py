"""Harness for running real Apache RocketMQ servers and the Java mqadmin in tests.

See ``apache.py`` for the API and ``README.md`` in this directory for details.
Nothing from Apache is stored in the repository: published jars are fetched
from Maven Central into a cache outside it the first time they are needed.
"""
