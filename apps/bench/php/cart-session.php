<?php
// A signed-in user's session with a shop cart, as `session_encode` writes it with HANDLER (`php` or
// `igbinary`), of about BYTES bytes: `php cart-session.php BYTES OUT_FILE HANDLER`. Then
// `php cart-session.php --decode FILE ROUNDS HANDLER` prints the CPU microseconds one `session_decode`
// of that file takes in PHP itself (median of ROUNDS).
declare(strict_types=1);

ini_set('session.use_cookies', '0');
ini_set('session.use_strict_mode', '0');
ini_set('session.save_handler', 'files');
ini_set('session.save_path', dirname($argv[2] ?? $argv[3] ?? '.'));
ini_set('session.serialize_handler', $argv[1] === '--decode' ? $argv[4] : $argv[3]);

function cpu_us(): float {
    $usage = getrusage();
    return $usage['ru_utime.tv_sec'] * 1e6 + $usage['ru_utime.tv_usec'] + $usage['ru_stime.tv_sec'] * 1e6 + $usage['ru_stime.tv_usec'];
}

session_id('benchcartbenchcartbench');
session_start();
if ($argv[1] === '--decode') {
    $data = file_get_contents($argv[2]);
    $rounds = (int) $argv[3];
    $times = [];
    for ($r = 0; $r < $rounds; $r++) {
        // Enough decodes per sample for getrusage's resolution.
        $n = max(1, intdiv(20_000_000, strlen($data)));
        $start = cpu_us();
        for ($i = 0; $i < $n; $i++) { $_SESSION = []; session_decode($data); }
        $times[] = (cpu_us() - $start) / $n;
    }
    sort($times);
    session_abort();
    echo $times[intdiv(count($times), 2)], "\n";
    exit(0);
}

$target = (int) $argv[1];
$_SESSION = [
    'user' => ['id' => 61, 'nombre' => 'Ana Núñez', 'roles' => ['ventas', 'admin'], 'empresa' => 3],
    'LAST_ACTIVITY' => time(),
    'csrf' => bin2hex(random_bytes(16)),
    'cart' => [],
];
mt_srand(7);
for ($i = 0; strlen(session_encode()) < $target; $i++) {
    for ($j = 0; $j < 50; $j++) {
        $_SESSION['cart'][] = [
            'sku' => sprintf('SKU-%06d', $i * 50 + $j),
            'nombre' => 'Artículo de prueba ' . mt_rand(1, 99999),
            'cantidad' => mt_rand(1, 20),
            'precio' => mt_rand(100, 999999) / 100,
            'opciones' => ['color' => ['rojo', 'azul', 'verde'][mt_rand(0, 2)], 'talla' => mt_rand(36, 46)],
            'agregado' => time() - mt_rand(0, 86400),
        ];
    }
}
file_put_contents($argv[2], session_encode());
session_abort();
