catalog servers
