document.getElementById('bench-floor-box')?.remove();
return true;
