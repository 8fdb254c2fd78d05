"""Topics and groups as code: a topology file (TOML) describing the topics and subscription groups of one or
more clusters, compared with the live clusters (``plan``), applied to them (``apply``) and written from them
(``exportTopology``); plus the live checks behind ``wait`` and ``doctor``.

* ``model``: the file's format, checked and resolved into the desired state of each cluster;
* ``live``: reading a cluster's masters (topics, groups, versions) and the ordered-topic configs;
* ``plan``: the difference, item by item (create / update / delete, old → new per field);
* ``apply``: carrying out a plan concurrently, topics in batches (code 18) where brokers have it;
* ``export``: a live cluster as a topology file;
* ``wait`` and ``doctor``: conditions CI waits for, and one cluster's health rules.
"""
