#!/usr/bin/env node
// The launcher is ./agentboard at the repository's root; this path stays for callers that name it.
import "../agentboard";
