-- Growth of the classes that changed most between consecutive snapshots.
WITH top AS (
  SELECT name FROM js_heap_class_diff GROUP BY name ORDER BY sum(abs(size_delta)) DESC LIMIT 12
)
SELECT b.file_name || ' → ' || f.file_name AS step, d.name, d.added_count, d.removed_count,
  d.count_delta, d.size_delta
FROM js_heap_class_diff d
JOIN js_heap_files b ON b.id = d.base_file_id
JOIN js_heap_files f ON f.id = d.file_id
WHERE d.name IN (SELECT name FROM top)
ORDER BY d.file_id, d.size_delta DESC
