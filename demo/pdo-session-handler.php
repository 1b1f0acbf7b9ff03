<?php
// The demo's PDO session table (PHP_SESSION_SETUPS' pdo/php on SQLite, pdo/php/postgres, pdo/php/mysql): a
// SessionHandlerInterface over PDO with Symfony PdoSessionHandler's schema (sess_lifetime = the expiry's Unix
// time), as a plain PHP app writes one. Prepended to every page (auto_prepend_file) by a file of the demo's that
// defines PDO_SESSION_DSN, PDO_SESSION_USER, PDO_SESSION_PASSWORD and PDO_SESSION_TABLE first.
declare(strict_types=1);

final class DemoPdoSessionHandler implements SessionHandlerInterface, SessionUpdateTimestampHandlerInterface
{
    private ?PDO $pdo = null;

    public function __construct(private string $table) {}

    private function pdo(): PDO
    {
        return $this->pdo ??= new PDO(PDO_SESSION_DSN, PDO_SESSION_USER ?: null, PDO_SESSION_PASSWORD ?: null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
    }

    public function open(string $path, string $name): bool { return true; }
    public function close(): bool { return true; }

    public function read(string $id): string|false
    {
        $select = $this->pdo()->prepare("SELECT sess_data FROM {$this->table} WHERE sess_id = ? AND sess_lifetime >= ?");
        $select->execute([$id, time()]);
        $data = $select->fetchColumn();
        return $data === false ? '' : (is_resource($data) ? stream_get_contents($data) : (string) $data);
    }

    public function write(string $id, string $data): bool
    {
        // Symfony's merge statement for each driver.
        $update = $this->pdo()->getAttribute(PDO::ATTR_DRIVER_NAME) === 'mysql'
            ? 'ON DUPLICATE KEY UPDATE sess_data = VALUES(sess_data), sess_lifetime = VALUES(sess_lifetime), sess_time = VALUES(sess_time)'
            : 'ON CONFLICT (sess_id) DO UPDATE SET sess_data = excluded.sess_data, sess_lifetime = excluded.sess_lifetime, sess_time = excluded.sess_time';
        $write = $this->pdo()->prepare("INSERT INTO {$this->table} (sess_id, sess_data, sess_lifetime, sess_time) VALUES (:id, :data, :expiry, :time) $update");
        $write->bindValue(':id', $id);
        $write->bindParam(':data', $data, PDO::PARAM_LOB);
        $write->bindValue(':expiry', time() + (int) ini_get('session.gc_maxlifetime'), PDO::PARAM_INT);
        $write->bindValue(':time', time(), PDO::PARAM_INT);
        return $write->execute();
    }

    public function destroy(string $id): bool
    {
        return $this->pdo()->prepare("DELETE FROM {$this->table} WHERE sess_id = ?")->execute([$id]);
    }

    public function gc(int $max): int|false
    {
        $delete = $this->pdo()->prepare("DELETE FROM {$this->table} WHERE sess_lifetime < ?");
        $delete->execute([time()]);
        return $delete->rowCount();
    }

    public function validateId(string $id): bool { return $this->read($id) !== ''; }

    public function updateTimestamp(string $id, string $data): bool
    {
        return $this->pdo()->prepare("UPDATE {$this->table} SET sess_lifetime = ?, sess_time = ? WHERE sess_id = ?")
            ->execute([time() + (int) ini_get('session.gc_maxlifetime'), time(), $id]);
    }
}

session_set_save_handler(new DemoPdoSessionHandler(PDO_SESSION_TABLE), true);
