<?php
// A PHP page with the inline-edit form. Its two jQuery posts go to the two paths that nginx now sends
// to the service; the page itself, the sign-in and the sign-out are still PHP.
require __DIR__ . '/session.php';
if (!isset($_SESSION['user'])) {
    header('Location: /index.php');
    exit;
}
$user = $_SESSION['user'];
$id = (int) ($_GET['id'] ?? 101);
?><!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Cotización <?= $id ?></title>
<script src="/jquery.php"></script></head>
<body>
<p>Hola, <span id="user"><?= h((string) $user['nombre']) ?></span> (usuario <?= h((string) $user['id']) ?>) · <a id="logout" href="/logout.php">Salir</a></p>
<h1>Cotización <?= $id ?></h1>
<form id="edit">
  <input type="hidden" name="id" value="<?= $id ?>">
  <input type="hidden" name="field" value="estado">
  <label>Estado <input name="value" value="pendiente"></label>
  <button type="submit">Guardar</button>
</form>
<table><tr><td>Ítem 44</td><td><button id="delete-item" data-id="44">Eliminar</button></td></tr></table>
<p>Respuesta: <code id="result"></code></p>
<script>
  const show = (reply) => $('#result').text(JSON.stringify(reply));
  const failed = (xhr) => show({ failed: xhr.status, body: xhr.responseText });
  $('#edit').on('submit', (event) => {
    event.preventDefault();
    $('#result').text('…');
    $.post('/cotizaciones/api/update_cotizacion_api.php', $('#edit').serialize(), show, 'json').fail(failed);
  });
  $('#delete-item').on('click', function () {
    $('#result').text('…');
    $.post('/cotizaciones/api/update_cot_item.php', { id: $(this).data('id'), delete: '' }, show, 'json').fail(failed);
  });
</script>
</body></html>
