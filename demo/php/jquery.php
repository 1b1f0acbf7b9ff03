<?php
// The page's jQuery: the copy the repository already installs (koa-server's devDependency), nothing from outside.
header('Content-Type: text/javascript; charset=utf-8');
header('Cache-Control: max-age=3600');
readfile(__DIR__ . '/../../apps/koa-server/node_modules/jquery/dist/jquery.min.js');
