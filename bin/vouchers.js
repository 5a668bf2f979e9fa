#!/usr/bin/env node
require('../dist/cli/launch.cjs').main(process);
