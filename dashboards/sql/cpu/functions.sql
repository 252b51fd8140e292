-- Functions of all profiles by self time, with total time (not double-counted under recursion).
SELECT CASE WHEN name = '' THEN '(anonymous)' ELSE name END AS name,
  replace(url, rtrim(url, replace(url, '/', '')), '') AS file, line,
  sum(self_time) / 1e6 AS self_ms, sum(total_time) / 1e6 AS total_ms, sum(samples) AS samples
FROM js_cpu_profiler_function
GROUP BY name, url, line
ORDER BY self_ms DESC LIMIT 25
