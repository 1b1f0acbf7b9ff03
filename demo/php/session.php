<?php
// The demo app's session step, included by every page: start the session, and sign out a user idle
// for longer than IDLE_SECONDS (the service applies the same rule: PHP_SESSION_ACTIVITY_KEY/IDLE_SECONDS).
declare(strict_types=1);
const IDLE_SECONDS = 1800;
header('X-Served-By: php');
session_start();
if (isset($_SESSION['user']) && time() - (int) ($_SESSION['LAST_ACTIVITY'] ?? 0) > IDLE_SECONDS) {
    $_SESSION = [];
    session_destroy();
    session_start();
}
if (isset($_SESSION['user'])) $_SESSION['LAST_ACTIVITY'] = time();

function h(string $text): string
{
    return htmlspecialchars($text, ENT_QUOTES, 'UTF-8');
}
