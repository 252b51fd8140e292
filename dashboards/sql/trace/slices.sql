-- Slices by name: the slowest first (longest single slice), with count and total.
SELECT name, count(*) AS slices, max(dur) / 1e6 AS max_ms, avg(dur) / 1e6 AS avg_ms, sum(dur) / 1e6 AS total_ms
FROM callstack
WHERE dur IS NOT NULL AND name IS NOT NULL
GROUP BY name ORDER BY max_ms DESC LIMIT 20
