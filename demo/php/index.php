<?php
// The PHP app's sign-in page (it stays in PHP: the service has no sign-in of its own in this mode).
require __DIR__ . '/session.php';
if ($_SERVER['REQUEST_METHOD'] === 'POST') {
    $id = trim((string) ($_POST['id'] ?? ''));
    if (ctype_digit($id) && $id !== '0') {
        session_regenerate_id(true);
        $_SESSION['user'] = ['id' => (int) $id, 'nombre' => trim((string) ($_POST['nombre'] ?? '')) ?: 'Usuario ' . $id];
        $_SESSION['LAST_ACTIVITY'] = time();
        header('Location: /cotizacion.php?id=101');
        exit;
    }
    $error = 'Escriba un número de usuario.';
}
?><!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Ingresar</title></head>
<body>
<h1>Cotizaciones (PHP)</h1>
<?php if (isset($_SESSION['user'])): ?>
  <p>Sesión iniciada como <?= h((string) $_SESSION['user']['nombre']) ?>. <a href="/cotizacion.php?id=101">Ir a la cotización</a> · <a href="/logout.php">Salir</a></p>
<?php else: ?>
  <?php if (isset($error)): ?><p id="error"><?= h($error) ?></p><?php endif ?>
  <form id="signin" method="post" action="/index.php">
    <label>Usuario (número) <input name="id" value="4242"></label>
    <label>Nombre <input name="nombre" value="Ana Núñez"></label>
    <button type="submit">Ingresar</button>
  </form>
<?php endif ?>
</body></html>
