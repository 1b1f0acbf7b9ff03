<?php
// Sign-out in PHP: the session is destroyed in the shared store, so the service sees it gone too.
require __DIR__ . '/session.php';
$_SESSION = [];
session_destroy();
header('Location: /index.php');
